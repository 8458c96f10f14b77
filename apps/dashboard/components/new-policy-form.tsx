'use client';

import { newPolicy } from '@/lib/actions/policies';
import { POLICY_METHODS } from '@/lib/api-answers';
import { attemptKey, formError, type FormState } from '@/lib/form-state';
import { CreateForm } from './create-form';
import { Field } from './form-field';
import { FormAlert } from './form-messages';
import { limitErrorFields, LimitFields } from './limit-fields';
import type { NamedOption } from './named-select';
import { POLICY_SETTINGS_FIELDS, PolicySettingsFields } from './policy-settings-fields';

const FIELDS = ['planId', 'tenantId', 'name', 'method', 'pattern', ...POLICY_SETTINGS_FIELDS, ...limitErrorFields('limits.0.', 'whole')];

/** A new policy: whose (a plan, or one tenant), its route, its settings and its first limit. */
export function NewPolicyForm({ plans, tenants }: { plans: NamedOption[]; tenants: NamedOption[] }) {
  return (
    <CreateForm
      id="policy-new"
      title="New policy"
      hint="A tenant's own policy replaces its plan's policy of the same route."
      action={newPolicy}
      submitLabel="Create policy"
    >
      {(state) => <NewPolicyFields key={attemptKey(state)} state={state} plans={plans} tenants={tenants} />}
    </CreateForm>
  );
}

function NewPolicyFields({ state, plans, tenants }: { state: FormState; plans: NamedOption[]; tenants: NamedOption[] }) {
  const testId = (field: string) => `policy-new-${field}`;
  return (
    <>
      <FormAlert message={formError(state, FIELDS)} testId="policy-new-error" />
      <div className="form-row">
        <Field
          label="For"
          name="owner"
          errorField="planId"
          state={state}
          testId={testId('owner')}
          control={(props) => (
            <select {...props} className="input">
              {owners(plans, tenants).map(({ kind, label, options }) => (
                <optgroup key={kind} label={label}>
                  {options.map((o) => (
                    <option key={o.id} value={`${kind}:${o.id}`}>
                      {kind} {o.slug}
                    </option>
                  ))}
                </optgroup>
              ))}
            </select>
          )}
        />
        <Field label="Name" name="name" state={state} testId={testId('name')} className="field-name" input={{ autoComplete: 'off', placeholder: 'items', spellCheck: false }} />
        <Field
          label="Method"
          name="method"
          state={state}
          fallback="GET"
          testId={testId('method')}
          control={(props) => (
            <select {...props} className="input">
              {POLICY_METHODS.map((m) => (
                <option key={m} value={m}>
                  {m === '*' ? '* (any)' : m}
                </option>
              ))}
            </select>
          )}
        />
        <Field label="Route pattern" name="pattern" state={state} testId={testId('pattern')} className="field-wide" input={{ autoComplete: 'off', placeholder: '/v1/items/*', spellCheck: false }} />
      </div>
      <div className="form-row">
        <PolicySettingsFields state={state} testId={testId} />
      </div>
      <h3 className="form-subheading">First limit</h3>
      <div className="form-row">
        <LimitFields state={state} prefix="limits.0." fields="whole" testId={(field) => `policy-new-limit-${field}`} />
      </div>
    </>
  );
}

/** Whom a policy can be for, as the "For" select groups them: posted as `plan:<id>` or `tenant:<id>`. */
function owners(plans: NamedOption[], tenants: NamedOption[]) {
  return [
    { kind: 'plan', label: 'Plans (every tenant on it)', options: plans },
    { kind: 'tenant', label: 'Tenants (their own)', options: tenants },
  ];
}
