'use client';

import { addPolicyLimit, editPolicyLimit, removePolicyLimit } from '@/lib/actions/policies';
import type { PlanLimit, Policy } from '@/lib/api-answers';
import { AddLimit } from './limit-add';
import { LimitEditor, LimitRemover } from './limit-editor';
import { EditableLimitRow, SAVE_LIMIT } from './limit-row';
import { LimitSummary } from './limit-summary';

/** A policy's limits (each with Edit and Remove) and "Add limit". */
export function PolicyLimits({ policy }: { policy: Policy }) {
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
      <AddLimit
        action={addPolicyLimit}
        statusKey={`policy-${policy.id}`}
        hidden={{ policyId: policy.id }}
        formLabel={`Add a limit to policy ${policy.name}`}
        testId={(part) => (part ? `policy-limit-add-${part}-${policy.name}` : `policy-limit-add-${policy.name}`)}
      />
    </>
  );
}

function PolicyLimitRow({ policy, limit }: { policy: Policy; limit: PlanLimit }) {
  const key = `${policy.name}-${limit.name}`;
  const statusKey = `policy-${policy.id}`;
  return (
    <EditableLimitRow
      testId={`policy-limit-${key}`}
      cells={<LimitSummary name={`${policy.name}-${limit.name}`} limit={limit} />}
      toggle={{ label: 'Edit', testId: `policy-limit-edit-${key}` }}
      remover={
        <LimitRemover
          action={removePolicyLimit}
          statusKey={statusKey}
          hidden={{ policyId: policy.id, limitId: limit.id, limitName: limit.name }}
          title={`Remove limit ${limit.name} from policy ${policy.name}`}
          testId={(part) => `policy-limit-${part}-${key}`}
        />
      }
      editor={(onDone) => (
        <LimitEditor
          action={editPolicyLimit}
          statusKey={statusKey}
          hidden={{ policyId: policy.id, limitId: limit.id }}
          show="count"
          limit={limit}
          label={`Edit limit ${limit.name}`}
          submit={SAVE_LIMIT}
          testId={(part) => `policy-limit-edit-${part}-${key}`}
          onDone={onDone}
          className="inline-panel limit-edit"
        />
      )}
    />
  );
}
