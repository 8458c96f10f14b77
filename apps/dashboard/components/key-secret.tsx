'use client';

import { useState } from 'react';
import type { FormState } from '@/lib/form-state';

type CopyState = 'idle' | 'copied' | 'failed';

/**
 * A new key's secret, from the answer of the action that made it: shown once, with Copy, until dismissed. It is
 * never put in a URL or stored; once this state is gone (Done, another attempt, leaving the page) so is the secret.
 */
export function KeySecret({ state, title }: { state: FormState; title: string }) {
  const [dismissed, setDismissed] = useState<FormState | null>(null);
  const [copied, setCopied] = useState<{ of: string; result: CopyState }>({ of: '', result: 'idle' });
  if (state.status !== 'done' || !state.secret || dismissed === state) return null;
  const secret = state.secret;
  const copy = copied.of === secret ? copied.result : 'idle';

  return (
    <section className="key-secret" role="status" aria-label={title}>
      <h3>{title}</h3>
      <p className="key-secret-warning">
        <strong>This is the only time the key is shown.</strong> Copy it now and keep it somewhere safe: Tollgate
        stores only its hash.
      </p>
      <div className="key-secret-value">
        <code data-testid="key-secret">{secret}</code>
        <button
          type="button"
          className="btn btn-sm"
          data-testid="key-copy"
          onClick={() => {
            navigator.clipboard.writeText(secret).then(
              () => setCopied({ of: secret, result: 'copied' }),
              () => setCopied({ of: secret, result: 'failed' }),
            );
          }}
        >
          {copy === 'copied' ? 'Copied' : 'Copy'}
        </button>
        <button type="button" className="btn btn-secondary btn-sm" onClick={() => setDismissed(state)} data-testid="key-secret-done">
          Done
        </button>
      </div>
      {copy === 'failed' && (
        <p className="form-message field-error" role="alert">
          The browser did not allow copying: select the key and copy it yourself.
        </p>
      )}
    </section>
  );
}
