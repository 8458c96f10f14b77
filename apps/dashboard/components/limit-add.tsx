'use client';

import { addLimit } from '@/lib/actions/limits';
import { LimitAdder, LimitEditor } from './limit-editor';

/** A plan card's foot: the message of the plan's last change, and "Add limit". */
export function PlanFooter({ plan }: { plan: { id: string; slug: string } }) {
  const statusKey = `plan-${plan.id}`;
  return (
    <LimitAdder
      statusKey={statusKey}
      label="Add limit"
      testId={`limit-add-${plan.slug}`}
      editor={(onDone) => (
        <LimitEditor
          action={addLimit}
          statusKey={statusKey}
          hidden={{ planId: plan.id }}
          show="whole"
          label={`Add a limit to plan ${plan.slug}`}
          submit={{ label: 'Add limit', pendingLabel: 'Adding…', testPart: 'submit' }}
          testId={(part) => `limit-add-${part}-${plan.slug}`}
          onDone={onDone}
        />
      )}
    />
  );
}
