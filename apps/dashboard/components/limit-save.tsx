'use client';

import { createContext, use, useActionState, useEffect, type ReactNode } from 'react';
import { saveLimit, type SaveLimitState } from '@/lib/actions/limits';
import type { PlanLimit } from '@/lib/api-answers';
import { formatPeriod } from '@/lib/format';
import { useMutationStatus, useSuccessMessage } from './mutation-status';
import { SubmitButton } from './submit-button';

interface LimitSaveContextValue {
  state: SaveLimitState;
  action: (formData: FormData) => void;
}

const LimitSaveContext = createContext<LimitSaveContextValue | null>(null);
const IDLE: SaveLimitState = { status: 'idle' };

const STATUS_KEY = 'limit-save';

/**
 * One save state for the whole page: only the limit saved last shows a message, so there is exactly one
 * `save-status` on screen (none once another change of the page succeeded after it), and the header badge
 * learns the new rule set version as soon as the API returns it.
 */
export function LimitSaveProvider({ children }: { children: ReactNode }) {
  const [state, action] = useActionState(saveLimit, IDLE);
  const { report } = useMutationStatus();

  useEffect(() => {
    if (state.status === 'saved') report(STATUS_KEY, state.message, state.ruleVersion);
  }, [state, report]);

  return <LimitSaveContext value={{ state, action }}>{children}</LimitSaveContext>;
}

interface LimitFormProps {
  planId: string;
  planSlug: string;
  planName: string;
  limit: PlanLimit;
}

export function LimitForm({ planId, planSlug, planName, limit }: LimitFormProps) {
  const context = use(LimitSaveContext);
  if (!context) throw new Error('LimitForm must be used inside LimitSaveProvider');
  const { state, action } = context;

  const latest = useSuccessMessage(STATUS_KEY) !== undefined;
  const outcome = state.status !== 'idle' && state.limitId === limit.id ? state : undefined;
  const failure = outcome?.status === 'failed' ? outcome : undefined;
  const key = `${planSlug}-${limit.name}`;
  const inputId = `limit-${key}`;
  const messageId = `${inputId}-message`;

  return (
    <form action={action} className="limit-form" noValidate>
      <input type="hidden" name="planId" value={planId} />
      <input type="hidden" name="limitId" value={limit.id} />
      <label htmlFor={inputId} className="sr-only">
        {`${planName} plan, ${limit.name} limit, ${formatPeriod(limit)}`}
      </label>
      <input
        id={inputId}
        name="limit"
        type="number"
        inputMode="numeric"
        min={1}
        step={1}
        required
        className="input"
        // After a failed save React resets the form; keep what the operator typed next to the error.
        defaultValue={failure ? failure.submitted : limit.limit}
        aria-invalid={failure ? true : undefined}
        aria-describedby={outcome ? messageId : undefined}
        data-testid={`limit-input-${key}`}
      />
      <span className="limit-unit">{formatPeriod(limit)}</span>
      <SubmitButton label="Save" pendingLabel="Saving…" testId={`limit-save-${key}`} />
      {failure && (
        <p id={messageId} className="form-message field-error" role="alert" data-testid={`limit-error-${key}`}>
          {failure.message}
        </p>
      )}
      {outcome?.status === 'saved' && latest && (
        <p id={messageId} className="form-message save-status" role="status" data-testid="save-status">
          {outcome.message}
        </p>
      )}
    </form>
  );
}
