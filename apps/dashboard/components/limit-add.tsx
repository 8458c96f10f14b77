'use client';

import { useState } from 'react';
import { addLimit } from '@/lib/actions/limits';
import { attemptKey, formError } from '@/lib/form-state';
import { FormAlert } from './form-messages';
import { limitErrorFields, LimitFields } from './limit-fields';
import { MutationStatus, useMutation, useSuccessMessage } from './mutation-status';
import { SubmitButton } from './submit-button';

/** A plan card's foot: the message of the plan's last change, and "Add limit". */
export function PlanFooter({ plan }: { plan: { id: string; slug: string } }) {
  const [adding, setAdding] = useState(false);
  const statusKey = `plan-${plan.id}`;
  const message = useSuccessMessage(statusKey);
  return (
    <>
      {adding && <AddLimitForm plan={plan} onDone={() => setAdding(false)} />}
      {(!adding || message) && (
        <footer className="plan-card-footer">
          {!adding && (
            <button
              type="button"
              className="btn btn-secondary btn-sm"
              onClick={() => setAdding(true)}
              data-testid={`limit-add-${plan.slug}`}
            >
              + Add limit
            </button>
          )}
          <MutationStatus statusKey={statusKey} />
        </footer>
      )}
    </>
  );
}

function AddLimitForm({ plan, onDone }: { plan: { id: string; slug: string }; onDone: () => void }) {
  const [state, action] = useMutation(addLimit, `plan-${plan.id}`, onDone);
  const testId = (field: string) => `limit-add-${field}-${plan.slug}`;

  return (
    <form action={action} className="inline-panel" noValidate aria-label={`Add a limit to plan ${plan.slug}`}>
      <input type="hidden" name="planId" value={plan.id} />
      <FormAlert message={formError(state, limitErrorFields('', true))} testId={testId('error')} />
      <div className="form-row" key={attemptKey(state)}>
        <LimitFields state={state} whole testId={testId} />
        <div className="form-row-buttons">
          <SubmitButton label="Add limit" pendingLabel="Adding…" testId={testId('submit')} />
          <button type="button" className="btn btn-secondary" onClick={onDone}>
            Cancel
          </button>
        </div>
      </div>
    </form>
  );
}
