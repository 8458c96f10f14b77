'use client';

import { newPolicy } from '@/lib/actions/policies';
import { POLICY_METHODS } from '@/lib/api-answers';
import { attemptKey, formError, type FormState } from '@/lib/form-state';
import { Field } from './form-field';
import { FormAlert } from './form-messages';
import { limitErrorFields, LimitFields } from './limit-fields';
import { MutationStatus, useMutation } from './mutation-status';
import type { NamedOption } from './named-select';
import { POLICY_SETTINGS_FIELDS, PolicySettingsFields } from './policy-settings-fields';
import { SubmitButton } from './submit-button';

const FIELDS = ['planId', 'tenantId', 'name', 'method', 'pattern', ...POLICY_SETTINGS_FIELDS, ...limitErrorFields('limits.0.', 'whole')];

/** A new policy: whose (a plan, or one tenant), its route, its settings and its first limit. */
export function NewPolicyForm({ plans, tenants }: { plans: NamedOption[]; tenants: NamedOption[] }) {
  const [state, action] = useMutation(newPolicy, 'policy-new');
  return (
    <section className="card form-card" aria-labelledby="policy-new-title" data-testid="policy-new">
      <header className="plan-card-header">
        <h2 id="policy-new-title">New policy</h2>
        <span className="tenant-count">A tenant&apos;s own policy replaces its plan&apos;s policy of the same route.</span>
      </header>
      <form action={action} className="form-body" noValidate>
        <NewPolicyFields key={attemptKey(state)} state={state} plans={plans} tenants={tenants} />
        <div className="form-actions">
          <SubmitButton label="Create policy" pendingLabel="Creating…" testId="policy-new-submit" />
          <MutationStatus statusKey="policy-new" />
        </div>
      </form>
    </section>
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
              <optgroup label="Plans (every tenant on it)">
                {plans.map((p) => (
                  <option key={p.id} value={`plan:${p.id}`}>
                    plan {p.slug}
                  </option>
                ))}
              </optgroup>
              <optgroup label="Tenants (their own)">
                {tenants.map((t) => (
                  <option key={t.id} value={`tenant:${t.id}`}>
                    tenant {t.slug}
                  </option>
                ))}
              </optgroup>
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
