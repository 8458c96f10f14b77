'use client';

import { type ReactNode, useState } from 'react';
import { editLimit, removeLimit } from '@/lib/actions/limits';
import type { PlanLimit } from '@/lib/api-answers';
import { LimitEditor, LimitRemover } from './limit-editor';
import { LimitForm } from './limit-save';
import { LimitSummary } from './limit-summary';
import { ToggleButton } from './toggle-button';

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

interface LimitRowProps {
  plan: { id: string; slug: string; name: string };
  limit: PlanLimit;
}

/** One limit of a plan: its count saved inline, Edit for its window, algorithm, burst and calendar, and Remove. */
export function LimitRow({ plan, limit }: LimitRowProps) {
  const key = `${plan.slug}-${limit.name}`;
  return (
    <EditableLimitRow
      testId={`limit-${key}`}
      cells={
        <>
          <LimitSummary name={limit.name} limit={limit} />
          <LimitForm planId={plan.id} planSlug={plan.slug} planName={plan.name} limit={limit} />
        </>
      }
      toggle={{ label: 'Edit', testId: `limit-edit-${key}` }}
      remover={
        <LimitRemover
          action={removeLimit}
          statusKey={`plan-${plan.id}`}
          hidden={{ planId: plan.id, limitId: limit.id, limitName: limit.name }}
          title={`Remove limit ${limit.name} from plan ${plan.slug}`}
          testId={(part) => `limit-${part}-${key}`}
        />
      }
      editor={(onDone) => (
        <LimitEditor
          action={editLimit}
          statusKey={`plan-${plan.id}`}
          hidden={{ planId: plan.id, limitId: limit.id }}
          show="shape"
          limit={limit}
          label={`Edit limit ${limit.name}`}
          submit={SAVE_LIMIT}
          testId={(part) => `limit-edit-${part}-${key}`}
          onDone={onDone}
          className="inline-panel limit-edit"
        />
      )}
    />
  );
}
