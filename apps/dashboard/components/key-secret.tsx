'use client';

import { type ReactNode, useState } from 'react';
import type { FormState } from '@/lib/form-state';
import './keys.css';

type CopyState = 'idle' | 'copied' | 'failed';

interface KeySecretProps {
  state: FormState;
  title: string;
  /** What the secret is and why it is shown once (a key's, unless told). */
  warning?: ReactNode;
  /** Test ids: `<prefix>-secret`, `<prefix>-copy`, `<prefix>-secret-done`. */
  testPrefix?: string;
}

const KEY_WARNING = (
  <>
    <strong>This is the only time the key is shown.</strong> Copy it now and keep it somewhere safe: Tollgate stores only
    its hash.
  </>
);

/**
 * A new secret (a key's, a webhook endpoint's), from the answer of the action that made it: shown once, with Copy,
 * until dismissed. It is never put in a URL or stored; once this state is gone (Done, another attempt, leaving the
 * page) so is the secret.
 */
export function KeySecret({ state, title, warning = KEY_WARNING, testPrefix = 'key' }: KeySecretProps) {
  const [dismissed, setDismissed] = useState<FormState | null>(null);
  const [copied, setCopied] = useState<{ of: string; result: CopyState }>({ of: '', result: 'idle' });
  if (state.status !== 'done' || !state.secret || dismissed === state) return null;
  const secret = state.secret;
  const copy = copied.of === secret ? copied.result : 'idle';

  return (
    <section className="key-secret" role="status" aria-label={title}>
      <h3>{title}</h3>
      <p className="key-secret-warning">{warning}</p>
      <div className="key-secret-value">
        <code data-testid={`${testPrefix}-secret`}>{secret}</code>
        <button
          type="button"
          className="btn btn-sm"
          data-testid={`${testPrefix}-copy`}
          onClick={() => {
            navigator.clipboard.writeText(secret).then(
              () => setCopied({ of: secret, result: 'copied' }),
              () => setCopied({ of: secret, result: 'failed' }),
            );
          }}
        >
          {copy === 'copied' ? 'Copied' : 'Copy'}
        </button>
        <button type="button" className="btn btn-secondary btn-sm" onClick={() => setDismissed(state)} data-testid={`${testPrefix}-secret-done`}>
          Done
        </button>
      </div>
      {copy === 'failed' && (
        <p className="form-message field-error" role="alert">
          The browser did not allow copying: select it and copy it yourself.
        </p>
      )}
    </section>
  );
}
