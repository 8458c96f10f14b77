'use client';

import Link from 'next/link';
import { createContext, use, useActionState, useEffect, type ReactNode } from 'react';
import { restoreVersion, type RestoreState } from '@/lib/actions/rule-sets';
import { ruleSetsHref } from '@/lib/rule-sets';
import { ChangeList, changeCount } from './rule-set-diff';
import { useObserveRuleVersion } from './rule-version';
import { SubmitButton } from './submit-button';
import './rule-sets.css';

interface RestoreContextValue {
  state: RestoreState;
  action: (formData: FormData) => void;
}

const RestoreContext = createContext<RestoreContextValue | null>(null);
const IDLE: RestoreState = { status: 'idle' };

function useRestore(): RestoreContextValue {
  const context = use(RestoreContext);
  if (!context) throw new Error('Restore components must be used inside RuleSetRestoreProvider');
  return context;
}

/** One restore state for the page; the header badge learns the new version as soon as the API returns it. */
export function RuleSetRestoreProvider({ children }: { children: ReactNode }) {
  const [state, action] = useActionState(restoreVersion, IDLE);
  const observeRuleVersion = useObserveRuleVersion();

  useEffect(() => {
    if (state.status === 'restored') observeRuleVersion(state.ruleVersion);
  }, [state, observeRuleVersion]);

  return <RestoreContext value={{ state, action }}>{children}</RestoreContext>;
}

interface RestorePanelProps {
  version: number;
  /** The version in force, against which `undoes` was read. */
  current: number;
  /** What restoring would undo, one line per change (the API's preview). */
  undoes: string[];
  trail: string[];
}

/**
 * The confirmation of a restore: what it would undo, line by line, before anything is sent; then what it did undo.
 */
export function RestorePanel({ version, current, undoes, trail }: RestorePanelProps) {
  const { state, action } = useRestore();
  const closeHref = ruleSetsHref(trail);
  const done = state.status === 'restored' && state.version === version ? state : undefined;
  const failure = state.status === 'failed' && state.version === version ? state : undefined;

  return (
    <section className="card diff-panel" aria-labelledby="rule-set-restore-title" data-testid="rule-set-restore-panel">
      <header className="plan-card-header">
        <div>
          <h2 id="rule-set-restore-title">{done ? `Restored v${version}` : `Restore v${version}?`}</h2>
          <p className="diff-description">
            {done
              ? `Published as v${done.ruleVersion}; every node enforces it within a second.`
              : `Publishes the plans, limits, plan assignments and policies of v${version} as a new version. Keys are not touched: a revoked key stays revoked.`}
          </p>
        </div>
        <span className="tenant-count">{changeCount(done ? done.undid.length : undoes.length)}</span>
        <Link href={done ? ruleSetsHref(trail, { version: done.ruleVersion }) : closeHref} className="btn btn-secondary btn-sm" data-testid="rule-set-restore-cancel">
          {done ? `View v${done.ruleVersion}` : 'Cancel'}
        </Link>
      </header>
      {done ? (
        <>
          <p className="restore-note" role="status" data-testid="restore-status">
            {done.message}
          </p>
          {done.undid.length > 0 && <ChangeList lines={done.undid} />}
        </>
      ) : undoes.length === 0 ? (
        <p className="panel muted" data-testid="rule-set-restore-nothing">
          The rules in force (v{current}) are already those of v{version}: restoring it would undo nothing.
        </p>
      ) : (
        <>
          <p className="restore-note">Against v{current}, the version in force, restoring v{version} undoes:</p>
          <ChangeList lines={undoes} />
          <form action={action} className="restore-actions">
            <input type="hidden" name="version" value={version} />
            <SubmitButton label={`Restore v${version}`} pendingLabel="Restoring…" className="btn btn-danger" testId="rule-set-restore-confirm" />
            {failure && (
              <p className="form-message field-error" role="alert" data-testid="rule-set-restore-error">
                {failure.message}
              </p>
            )}
          </form>
        </>
      )}
    </section>
  );
}
