'use client';

import { useState } from 'react';
import { editLimit, removeLimit } from '@/lib/actions/limits';
import type { PlanLimit } from '@/lib/api-answers';
import { LimitEditor, LimitRemover } from './limit-editor';
import { LimitForm } from './limit-save';
import { LimitSummary } from './limit-summary';
import { ToggleButton } from './toggle-button';

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
      <LimitSummary name={limit.name} limit={limit} />
      <LimitForm planId={plan.id} planSlug={plan.slug} planName={plan.name} limit={limit} />
      <div className="row-actions">
        <ToggleButton expanded={editing} onToggle={() => setEditing(!editing)} label="Edit" testId={`limit-edit-${key}`} />
        <LimitRemover
          action={removeLimit}
          statusKey={`plan-${plan.id}`}
          hidden={{ planId: plan.id, limitId: limit.id, limitName: limit.name }}
          title={`Remove limit ${limit.name} from plan ${plan.slug}`}
          testId={(part) => `limit-${part}-${key}`}
        />
      </div>
      {editing && (
        <LimitEditor
          action={editLimit}
          statusKey={`plan-${plan.id}`}
          hidden={{ planId: plan.id, limitId: limit.id }}
          show="shape"
          limit={limit}
          label={`Edit limit ${limit.name}`}
          submit={{ label: 'Save', pendingLabel: 'Saving…', testPart: 'save' }}
          testId={(part) => `limit-edit-${part}-${key}`}
          onDone={() => setEditing(false)}
          className="inline-panel limit-edit"
        />
      )}
    </li>
  );
}
