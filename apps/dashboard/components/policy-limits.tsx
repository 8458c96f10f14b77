'use client';

import { useState } from 'react';
import { addPolicyLimit, editPolicyLimit, removePolicyLimit } from '@/lib/actions/policies';
import type { PlanLimit, Policy } from '@/lib/api-types';
import { attemptKey, formError } from '@/lib/form-state';
import { formatAlgorithm, formatCount, formatWindow } from '@/lib/format';
import { ConfirmForm } from './confirm-submit';
import { Field } from './form-field';
import { FormAlert } from './form-messages';
import { limitErrorFields, LimitFields } from './limit-fields';
import { MutationStatus, useMutation, useSuccessMessage } from './mutation-status';
import { SubmitButton } from './submit-button';

/** A policy's limits (each with Edit and Remove) and "Add limit". */
export function PolicyLimits({ policy }: { policy: Policy }) {
  const [adding, setAdding] = useState(false);
  const statusKey = `policy-${policy.id}`;
  const message = useSuccessMessage(statusKey);
  return (
    <>
      {policy.limits.length === 0 ? (
        <p className="panel muted">No limits: the policy only sets the cost of its requests.</p>
      ) : (
        <ul className="limit-list">
          {policy.limits.map((limit) => (
            <PolicyLimitRow key={limit.id} policy={policy} limit={limit} />
          ))}
        </ul>
      )}
      {adding && <AddPolicyLimitForm policy={policy} onDone={() => setAdding(false)} />}
      {(!adding || message) && (
        <footer className="plan-card-footer">
          {!adding && (
            <button type="button" className="btn btn-secondary btn-sm" onClick={() => setAdding(true)} data-testid={`policy-limit-add-${policy.name}`}>
              + Add limit
            </button>
          )}
          <MutationStatus statusKey={statusKey} />
        </footer>
      )}
    </>
  );
}

function PolicyLimitRow({ policy, limit }: { policy: Policy; limit: PlanLimit }) {
  const [editing, setEditing] = useState(false);
  const key = `${policy.name}-${limit.name}`;
  return (
    <li className="limit-row" data-testid={`policy-limit-${key}`}>
      <div className="limit-cell">
        <div className="limit-name">
          {policy.name}-{limit.name}
        </div>
        <div className="limit-window">
          {formatCount(limit.limit)} {formatWindow(limit.windowS)}
        </div>
      </div>
      <div className="limit-cell">
        {formatAlgorithm(limit.algorithm)}
        {limit.burst !== null && <div className="limit-window">burst {formatCount(limit.burst)}</div>}
      </div>
      <div className="row-actions">
        <button type="button" className="btn btn-secondary btn-sm" aria-expanded={editing} onClick={() => setEditing(!editing)} data-testid={`policy-limit-edit-${key}`}>
          Edit
        </button>
        <RemovePolicyLimitForm policy={policy} limit={limit} testKey={key} />
      </div>
      {editing && <EditPolicyLimitForm policy={policy} limit={limit} testKey={key} onDone={() => setEditing(false)} />}
    </li>
  );
}

function EditPolicyLimitForm({ policy, limit, testKey, onDone }: { policy: Policy; limit: PlanLimit; testKey: string; onDone: () => void }) {
  const [state, action] = useMutation(editPolicyLimit, `policy-${policy.id}`, onDone);
  const testId = (field: string) => `policy-limit-edit-${field}-${testKey}`;
  return (
    <form action={action} className="inline-panel limit-edit" noValidate aria-label={`Edit limit ${limit.name}`}>
      <input type="hidden" name="policyId" value={policy.id} />
      <input type="hidden" name="limitId" value={limit.id} />
      <FormAlert message={formError(state, ['limit', ...limitErrorFields()])} testId={testId('error')} />
      <div className="form-row" key={attemptKey(state)}>
        <Field
          label="Limit"
          name="limit"
          state={state}
          fallback={String(limit.limit)}
          testId={testId('limit')}
          className="field-count"
          input={{ type: 'number', inputMode: 'numeric', min: 1, step: 1, className: 'input input-number' }}
        />
        <LimitFields state={state} limit={limit} testId={testId} />
        <div className="form-row-buttons">
          <SubmitButton label="Save" pendingLabel="Saving…" testId={testId('save')} />
          <button type="button" className="btn btn-secondary" onClick={onDone}>
            Cancel
          </button>
        </div>
      </div>
    </form>
  );
}

function AddPolicyLimitForm({ policy, onDone }: { policy: Policy; onDone: () => void }) {
  const [state, action] = useMutation(addPolicyLimit, `policy-${policy.id}`, onDone);
  const testId = (field: string) => `policy-limit-add-${field}-${policy.name}`;
  return (
    <form action={action} className="inline-panel" noValidate aria-label={`Add a limit to policy ${policy.name}`}>
      <input type="hidden" name="policyId" value={policy.id} />
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

function RemovePolicyLimitForm({ policy, limit, testKey }: { policy: Policy; limit: PlanLimit; testKey: string }) {
  const [state, action] = useMutation(removePolicyLimit, `policy-${policy.id}`);
  return (
    <ConfirmForm
      action={action}
      fields={{ policyId: policy.id, limitId: limit.id, limitName: limit.name }}
      label="Remove"
      confirmLabel="Confirm remove"
      pendingLabel="Removing…"
      title={`Remove limit ${limit.name} from policy ${policy.name}`}
      testId={`policy-limit-remove-${testKey}`}
      cancelTestId={`policy-limit-remove-cancel-${testKey}`}
    >
      {state.status === 'failed' && (
        <p className="form-message field-error" role="alert">
          {state.message}
        </p>
      )}
    </ConfirmForm>
  );
}
