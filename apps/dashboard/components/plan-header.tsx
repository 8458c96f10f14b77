'use client';

import { useState } from 'react';
import { removePlan, renamePlan } from '@/lib/actions/plans';
import type { Plan } from '@/lib/api-answers';
import { formatCount } from '@/lib/format';
import { ConfirmForm } from './confirm-submit';
import { Field } from './form-field';
import { InlineForm } from './inline-form';
import { useMutation } from './mutation-status';
import { ToggleButton } from './toggle-button';

/**
 * A plan's name, slug and tenant count, how many of them are at a limit now (`atLimit`, null: not known or no tenants),
 * with Rename and a two-step Delete plan.
 */
export function PlanHeader({ plan, atLimit = null }: { plan: Pick<Plan, 'id' | 'slug' | 'name' | 'tenantCount'>; atLimit?: { text: string; count: number } | null }) {
  const [renaming, setRenaming] = useState(false);
  // Here rather than in the Delete form: a refusal shows across the card, under its header.
  const [deletion, deleteAction] = useMutation(removePlan, 'plans');
  const deleteMessageId = `plan-delete-${plan.slug}-message`;
  return (
    <>
      <header className="plan-card-header">
        <h2 id={`plan-${plan.slug}`}>{plan.name}</h2>
        <span className="chip">{plan.slug}</span>
        <span className="tenant-count">
          <span data-testid={`plan-tenants-${plan.slug}`}>
            {formatCount(plan.tenantCount)} {plan.tenantCount === 1 ? 'tenant' : 'tenants'}
          </span>
          {atLimit && (
            <>
              {' · '}
              <span className={atLimit.count > 0 ? 'at-limit' : undefined} data-testid={`plan-at-limit-${plan.slug}`}>
                {atLimit.text}
              </span>
            </>
          )}
        </span>
        <div className="plan-card-actions">
          <ToggleButton expanded={renaming} onToggle={() => setRenaming(!renaming)} label="Rename" testId={`plan-rename-${plan.slug}`} />
          <DeletePlanForm plan={plan} action={deleteAction} describedBy={deletion.status === 'failed' ? deleteMessageId : undefined} />
        </div>
      </header>
      {deletion.status === 'failed' && (
        <p id={deleteMessageId} className="form-alert card-alert" role="alert" data-testid={`plan-delete-error-${plan.slug}`}>
          {deletion.message}
        </p>
      )}
      {renaming && <RenamePlanForm plan={plan} onDone={() => setRenaming(false)} />}
    </>
  );
}

function RenamePlanForm({ plan, onDone }: { plan: Pick<Plan, 'id' | 'slug' | 'name'>; onDone: () => void }) {
  return (
    <InlineForm
      action={renamePlan}
      statusKey={`plan-${plan.id}`}
      onDone={onDone}
      hidden={{ planId: plan.id }}
      errorFields={['name']}
      submit={{ label: 'Save name', testId: `plan-rename-save-${plan.slug}` }}
    >
      {(state) => (
        <Field
          label="Plan name"
          name="name"
          state={state}
          fallback={plan.name}
          testId={`plan-rename-input-${plan.slug}`}
          className="field-wide"
          input={{ autoComplete: 'off', autoFocus: true }}
        />
      )}
    </InlineForm>
  );
}

interface DeletePlanFormProps {
  plan: Pick<Plan, 'id' | 'slug' | 'tenantCount'>;
  action: (formData: FormData) => void;
  describedBy: string | undefined;
}

function DeletePlanForm({ plan, action, describedBy }: DeletePlanFormProps) {
  return (
    <ConfirmForm
      action={action}
      fields={{ planId: plan.id, planSlug: plan.slug }}
      label="Delete plan"
      title={plan.tenantCount > 0 ? 'Tenants are on this plan: move them to another plan first' : `Delete plan ${plan.slug}`}
      describedBy={describedBy}
      testId={`plan-delete-${plan.slug}`}
      cancelTestId={`plan-delete-cancel-${plan.slug}`}
    />
  );
}
