'use client';

import { useState } from 'react';
import { editLimit, removeLimit } from '@/lib/actions/limits';
import type { PlanLimit } from '@/lib/api-types';
import { attemptKey, formError } from '@/lib/form-state';
import { formatAlgorithm, formatCount, formatWindow } from '@/lib/format';
import { ConfirmForm } from './confirm-submit';
import { FormAlert } from './form-messages';
import { limitErrorFields, LimitFields } from './limit-fields';
import { LimitForm } from './limit-save';
import { useMutation } from './mutation-status';
import { SubmitButton } from './submit-button';

interface LimitRowProps {
  plan: { id: string; slug: string; name: string };
  limit: PlanLimit;
}

/** One limit of a plan: its count saved inline, Edit for its window, algorithm and burst, and Remove. */
export function LimitRow({ plan, limit }: LimitRowProps) {
  const [editing, setEditing] = useState(false);
  const key = `${plan.slug}-${limit.name}`;

  return (
    <li className="limit-row" data-testid={`limit-${key}`}>
      <div className="limit-cell">
        <div className="limit-name">{limit.name}</div>
        <div className="limit-window">
          {formatCount(limit.limit)} {formatWindow(limit.windowS)}
        </div>
      </div>
      <div className="limit-cell">
        {formatAlgorithm(limit.algorithm)}
        {limit.burst !== null && <div className="limit-window">burst {formatCount(limit.burst)}</div>}
      </div>
      <LimitForm planId={plan.id} planSlug={plan.slug} planName={plan.name} limit={limit} />
      <div className="row-actions">
        <button
          type="button"
          className="btn btn-secondary btn-sm"
          aria-expanded={editing}
          onClick={() => setEditing(!editing)}
          data-testid={`limit-edit-${key}`}
        >
          Edit
        </button>
        <RemoveLimitForm plan={plan} limit={limit} testKey={key} />
      </div>
      {editing && <EditLimitForm plan={plan} limit={limit} testKey={key} onDone={() => setEditing(false)} />}
    </li>
  );
}

interface LimitFormProps {
  plan: { id: string; slug: string };
  limit: PlanLimit;
  testKey: string;
}

function EditLimitForm({ plan, limit, testKey, onDone }: LimitFormProps & { onDone: () => void }) {
  const [state, action] = useMutation(editLimit, `plan-${plan.id}`, onDone);

  return (
    <form action={action} className="inline-panel limit-edit" noValidate aria-label={`Edit limit ${limit.name}`}>
      <input type="hidden" name="planId" value={plan.id} />
      <input type="hidden" name="limitId" value={limit.id} />
      <FormAlert message={formError(state, limitErrorFields())} testId={`limit-edit-error-${testKey}`} />
      <div className="form-row" key={attemptKey(state)}>
        <LimitFields state={state} limit={limit} testId={(field) => `limit-edit-${field}-${testKey}`} />
        <div className="form-row-buttons">
          <SubmitButton label="Save" pendingLabel="Saving…" testId={`limit-edit-save-${testKey}`} />
          <button type="button" className="btn btn-secondary" onClick={onDone}>
            Cancel
          </button>
        </div>
      </div>
    </form>
  );
}

function RemoveLimitForm({ plan, limit, testKey }: LimitFormProps) {
  const [state, action] = useMutation(removeLimit, `plan-${plan.id}`);
  const messageId = `limit-remove-${testKey}-message`;

  return (
    <ConfirmForm
      action={action}
      fields={{ planId: plan.id, limitId: limit.id, limitName: limit.name }}
      label="Remove"
      confirmLabel="Confirm remove"
      pendingLabel="Removing…"
      title={`Remove limit ${limit.name} from plan ${plan.slug}`}
      describedBy={state.status === 'failed' ? messageId : undefined}
      testId={`limit-remove-${testKey}`}
      cancelTestId={`limit-remove-cancel-${testKey}`}
    >
      {state.status === 'failed' && (
        <p id={messageId} className="form-message field-error" role="alert" data-testid={`limit-remove-error-${testKey}`}>
          {state.message}
        </p>
      )}
    </ConfirmForm>
  );
}
