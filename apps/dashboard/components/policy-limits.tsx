'use client';

import { useState } from 'react';
import { addPolicyLimit, editPolicyLimit, removePolicyLimit } from '@/lib/actions/policies';
import type { PlanLimit, Policy } from '@/lib/api-answers';
import { LimitAdder, LimitEditor, LimitRemover } from './limit-editor';
import { LimitSummary } from './limit-summary';
import { ToggleButton } from './toggle-button';

/** A policy's limits (each with Edit and Remove) and "Add limit". */
export function PolicyLimits({ policy }: { policy: Policy }) {
  const statusKey = `policy-${policy.id}`;
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
      <LimitAdder
        statusKey={statusKey}
        label="Add limit"
        testId={`policy-limit-add-${policy.name}`}
        editor={(onDone) => (
          <LimitEditor
            action={addPolicyLimit}
            statusKey={statusKey}
            hidden={{ policyId: policy.id }}
            show="whole"
            label={`Add a limit to policy ${policy.name}`}
            submit={{ label: 'Add limit', pendingLabel: 'Adding…', testPart: 'submit' }}
            testId={(part) => `policy-limit-add-${part}-${policy.name}`}
            onDone={onDone}
          />
        )}
      />
    </>
  );
}

function PolicyLimitRow({ policy, limit }: { policy: Policy; limit: PlanLimit }) {
  const [editing, setEditing] = useState(false);
  const key = `${policy.name}-${limit.name}`;
  return (
    <li className="limit-row" data-testid={`policy-limit-${key}`}>
      <LimitSummary name={`${policy.name}-${limit.name}`} limit={limit} />
      <div className="row-actions">
        <ToggleButton expanded={editing} onToggle={() => setEditing(!editing)} label="Edit" testId={`policy-limit-edit-${key}`} />
        <LimitRemover
          action={removePolicyLimit}
          statusKey={`policy-${policy.id}`}
          hidden={{ policyId: policy.id, limitId: limit.id, limitName: limit.name }}
          title={`Remove limit ${limit.name} from policy ${policy.name}`}
          testId={(part) => `policy-limit-${part}-${key}`}
        />
      </div>
      {editing && (
        <LimitEditor
          action={editPolicyLimit}
          statusKey={`policy-${policy.id}`}
          hidden={{ policyId: policy.id, limitId: limit.id }}
          show="count"
          limit={limit}
          label={`Edit limit ${limit.name}`}
          submit={{ label: 'Save', pendingLabel: 'Saving…', testPart: 'save' }}
          testId={(part) => `policy-limit-edit-${part}-${key}`}
          onDone={() => setEditing(false)}
          className="inline-panel limit-edit"
        />
      )}
    </li>
  );
}
