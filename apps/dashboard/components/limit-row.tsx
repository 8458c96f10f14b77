'use client';

import { type ReactNode, useState } from 'react';
import { addLimit, editLimit, removeLimit } from '@/lib/actions/limits';
import { addPolicyLimit, editPolicyLimit, removePolicyLimit } from '@/lib/actions/policies';
import type { PlanLimit } from '@/lib/api-answers';
import { AddLimit } from './limit-add';
import { LimitEditor, LimitRemover } from './limit-editor';
import { LimitSummary } from './limit-summary';
import { ToggleButton } from './toggle-button';
import './limits.css';

/** The submit of a limit's Edit form. */
export const SAVE_LIMIT = { label: 'Save', pendingLabel: 'Saving…', testPart: 'save' };

/** The header row of a list of limits: name, algorithm, and what the third column shows. */
export function LimitListHead({ third }: { third: string }) {
  return (
    <li className="limit-row limit-list-head" aria-hidden="true">
      <span>Name</span>
      <span>Algorithm</span>
      <span>{third}</span>
    </li>
  );
}

interface EditableLimitRowProps {
  testId: string;
  /** What the row shows: the limit's summary and any cells of its own. */
  cells: ReactNode;
  /** The button that opens the Edit form. */
  toggle: { label: string; testId: string };
  /** The Remove button, when the limit can be removed here. */
  remover?: ReactNode;
  /** The Edit form, given what closes it. */
  editor: (onDone: () => void) => ReactNode;
}

/** One limit of a plan, a policy or a tenant: its cells, Edit (which opens its form below) and Remove. */
export function EditableLimitRow({ testId, cells, toggle, remover, editor }: EditableLimitRowProps) {
  const [editing, setEditing] = useState(false);
  return (
    <li className="limit-row" data-testid={testId}>
      {cells}
      <div className="row-actions">
        <ToggleButton expanded={editing} onToggle={() => setEditing(!editing)} label={toggle.label} testId={toggle.testId} />
        {remover}
      </div>
      {editing && editor(() => setEditing(false))}
    </li>
  );
}

/**
 * Whose limits: a plan's or a policy's. Both are edited the same way (Edit opens the count, window, algorithm,
 * burst and calendar; Remove; "Add limit"); only the actions, the id they post and the test ids differ.
 */
export interface LimitOwner {
  kind: 'plan' | 'policy';
  id: string;
  /** The plan's slug or the policy's name: in titles and test ids. */
  name: string;
}

const OWNERS = {
  plan: { add: addLimit, edit: editLimit, remove: removeLimit, idField: 'planId', test: 'limit' },
  policy: { add: addPolicyLimit, edit: editPolicyLimit, remove: removePolicyLimit, idField: 'policyId', test: 'policy-limit' },
} as const;

interface OwnerLimitsProps {
  owner: LimitOwner;
  limits: PlanLimit[];
  /** What an empty list means for this owner. */
  empty: string;
}

/** A plan's or a policy's limits, each with Edit and Remove, and "Add limit" at their foot. */
export function OwnerLimits({ owner, limits, empty }: OwnerLimitsProps) {
  const { add, idField, test } = OWNERS[owner.kind];
  return (
    <>
      {limits.length === 0 ? (
        <p className="panel muted">{empty}</p>
      ) : (
        <ul className="limit-list limit-list-owned">
          <LimitListHead third="" />
          {limits.map((limit) => (
            <OwnerLimitRow key={limit.id} owner={owner} limit={limit} />
          ))}
        </ul>
      )}
      <AddLimit
        action={add}
        statusKey={`${owner.kind}-${owner.id}`}
        hidden={{ [idField]: owner.id }}
        formLabel={`Add a limit to ${owner.kind} ${owner.name}`}
        testId={(part) => (part ? `${test}-add-${part}-${owner.name}` : `${test}-add-${owner.name}`)}
      />
    </>
  );
}

/** One limit: its summary (a policy's named `<policy>-<limit>` as check answers name it), Edit and Remove. */
function OwnerLimitRow({ owner, limit }: { owner: LimitOwner; limit: PlanLimit }) {
  const { edit, remove, idField, test } = OWNERS[owner.kind];
  const key = `${owner.name}-${limit.name}`;
  const statusKey = `${owner.kind}-${owner.id}`;
  return (
    <EditableLimitRow
      testId={`${test}-${key}`}
      cells={<LimitSummary name={owner.kind === 'policy' ? key : limit.name} limit={limit} />}
      toggle={{ label: 'Edit', testId: `${test}-edit-${key}` }}
      remover={
        <LimitRemover
          action={remove}
          statusKey={statusKey}
          hidden={{ [idField]: owner.id, limitId: limit.id, limitName: limit.name }}
          title={`Remove limit ${limit.name} from ${owner.kind} ${owner.name}`}
          testId={(part) => `${test}-${part}-${key}`}
        />
      }
      editor={(onDone) => (
        <LimitEditor
          action={edit}
          statusKey={statusKey}
          hidden={{ [idField]: owner.id, limitId: limit.id }}
          show="count"
          limit={limit}
          label={`Edit limit ${limit.name}`}
          submit={SAVE_LIMIT}
          testId={(part) => `${test}-edit-${part}-${key}`}
          onDone={onDone}
          className="inline-panel limit-edit"
        />
      )}
    />
  );
}
