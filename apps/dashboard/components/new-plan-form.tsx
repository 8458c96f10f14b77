'use client';

import { useState } from 'react';
import { newPlan } from '@/lib/actions/plans';
import { attemptKey, formError, type FormState } from '@/lib/form-state';
import { CreateForm } from './create-form';
import { Field } from './form-field';
import { FormAlert } from './form-messages';
import { limitErrorFields, LimitFields } from './limit-fields';

const MAX_ROWS = 20;

/** A new plan: its slug, its name and its first limits, one row each. */
export function NewPlanForm() {
  return (
    <CreateForm id="plan-new" title="New plan" hint="Creating a plan publishes a new rule set." action={newPlan} submitLabel="Create plan">
      {(state) => (
        // Remounted with every answer: rows and algorithms start again from what it holds.
        <NewPlanFields key={attemptKey(state)} state={state} />
      )}
    </CreateForm>
  );
}

/** After a failure, as many rows as were posted; otherwise one. */
function initialRows(state: FormState): number[] {
  const posted = state.status === 'failed' ? Object.keys(state.values).filter((name) => /^limits\.\d+\.name$/.test(name)).length : 0;
  return Array.from({ length: Math.max(posted, 1) }, (_, i) => i);
}

function NewPlanFields({ state }: { state: FormState }) {
  // Stable ids keep each row's typed values when one above it is removed; names follow the position.
  const [rows, setRows] = useState(() => initialRows(state));
  const errorFields = ['slug', 'name', ...rows.flatMap((_, i) => limitErrorFields(`limits.${i}.`, 'whole'))];

  return (
    <>
      <FormAlert message={formError(state, errorFields)} testId="plan-new-error" />
      <div className="form-row">
        <Field label="Slug" name="slug" state={state} testId="plan-new-slug" input={{ autoComplete: 'off', placeholder: 'business', spellCheck: false }} />
        <Field label="Name" name="name" state={state} testId="plan-new-name" className="field-wide" input={{ autoComplete: 'off', placeholder: 'Business' }} />
      </div>
      <h3 className="form-subheading">Limits</h3>
      <ol className="limit-rows">
        {rows.map((row, i) => (
          <li key={row} className="form-row" data-testid={`plan-new-limit-${i}`}>
            <LimitFields state={state} prefix={`limits.${i}.`} fields="whole" testId={(field) => `plan-new-limit-${field}-${i}`} />
            {rows.length > 1 && (
              <button
                type="button"
                className="btn btn-secondary btn-sm form-row-remove"
                onClick={() => setRows(rows.filter((r) => r !== row))}
                aria-label={`Remove limit row ${i + 1}`}
                data-testid={`plan-new-remove-row-${i}`}
              >
                Remove
              </button>
            )}
          </li>
        ))}
      </ol>
      {rows.length < MAX_ROWS && (
        <button
          type="button"
          className="btn btn-secondary btn-sm"
          onClick={() => setRows([...rows, Math.max(...rows) + 1])}
          data-testid="plan-new-add-row"
        >
          + Add limit row
        </button>
      )}
    </>
  );
}
