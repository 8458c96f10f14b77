'use client';

import { createContext, use, useActionState, useCallback, useEffect, useState, type ReactNode } from 'react';
import { restoreVersion, type RestoreState } from '@/lib/actions/rule-sets';
import { ConfirmSubmit } from './confirm-submit';
import { useObserveRuleVersion } from './rule-version';

interface RestoreContextValue {
  state: RestoreState;
  action: (formData: FormData) => void;
  /** The version whose Restore button waits for its confirming second click, if any. */
  armed: number | null;
  arm: (version: number | null) => void;
}

const RestoreContext = createContext<RestoreContextValue | null>(null);
const IDLE: RestoreState = { status: 'idle' };

function useRestore(): RestoreContextValue {
  const context = use(RestoreContext);
  if (!context) throw new Error('Restore components must be used inside RuleSetRestoreProvider');
  return context;
}

/**
 * One restore state for the page: a single `restore-status`, at most one button waiting for confirmation, and
 * the header badge learns the new version as soon as the API returns it.
 */
export function RuleSetRestoreProvider({ children }: { children: ReactNode }) {
  const [state, dispatch] = useActionState(restoreVersion, IDLE);
  const [armed, arm] = useState<number | null>(null);
  const observeRuleVersion = useObserveRuleVersion();

  useEffect(() => {
    if (state.status === 'restored') observeRuleVersion(state.ruleVersion);
  }, [state, observeRuleVersion]);

  const action = useCallback(
    (formData: FormData) => {
      arm(null);
      dispatch(formData);
    },
    [dispatch],
  );

  return <RestoreContext value={{ state, action, armed, arm }}>{children}</RestoreContext>;
}

export function RestoreStatus() {
  const { state } = useRestore();
  if (state.status !== 'restored') return null;
  return (
    <p className="restore-status save-status" role="status" data-testid="restore-status">
      {state.message}
    </p>
  );
}

/** "Restore v7" → "Confirm restore": nothing is sent before the second click. */
export function RestoreForm({ version }: { version: number }) {
  const { state, action, armed, arm } = useRestore();
  const failure = state.status === 'failed' && state.version === version ? state : undefined;
  const messageId = `rule-set-restore-${version}-message`;

  return (
    <form action={action} className="restore-form">
      <input type="hidden" name="version" value={version} />
      <ConfirmSubmit
        confirming={armed === version}
        onArm={() => arm(version)}
        onCancel={() => arm(null)}
        label={`Restore v${version}`}
        confirmLabel="Confirm restore"
        pendingLabel="Restoring…"
        title={`Publish the plans, limits and plan assignments of v${version} as a new version`}
        describedBy={failure ? messageId : undefined}
        testId={`rule-set-restore-${version}`}
        cancelTestId={`rule-set-restore-cancel-${version}`}
      />
      {failure && (
        <p id={messageId} className="form-message field-error" role="alert" data-testid={`rule-set-restore-error-${version}`}>
          {failure.message}
        </p>
      )}
    </form>
  );
}
