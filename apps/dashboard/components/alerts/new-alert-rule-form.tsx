'use client';

import { useState } from 'react';
import { newAlertRule } from '@/lib/actions/alerts';
import { isAlertKind, isPlatformKind, KIND_HINTS, KIND_LABELS, PARAM_FIELDS } from '@/lib/alerts';
import { ALERT_KINDS, type AlertKind } from '@/lib/api-answers';
import { attemptKey, submittedValue, type FormState } from '@/lib/form-state';
import { CreateForm } from '../create-form';
import { Field } from '../form-field';
import { ChoiceSelect, type NamedOption } from '../named-select';
import { AlertParamsFields } from './alert-params-fields';

/** The fields that show their own errors: any other failure (a `tenantId` refused) goes at the top. */
const FIELDS = ['name', 'kind', 'planId', 'repeatIntervalMinutes', ...new Set(Object.values(PARAM_FIELDS).flat().map((name) => `params.${name}`))];

interface NewAlertRuleFormProps {
  plans: NamedOption[];
  tenants: NamedOption[];
}

/** A new alert rule: its kind, whom it watches (a plan's tenants, one tenant, every tenant) and its parameters. */
export function NewAlertRuleForm({ plans, tenants }: NewAlertRuleFormProps) {
  return (
    <CreateForm id="alert-rule-new" title="New alert rule" hint="Its alerts go to the webhook endpoints subscribed to their events." action={newAlertRule} submitLabel="Create rule" errorFields={FIELDS}>
      {(state) => <RuleFields key={attemptKey(state)} state={state} plans={plans} tenants={tenants} />}
    </CreateForm>
  );
}

function RuleFields({ state, plans, tenants }: { state: FormState } & NewAlertRuleFormProps) {
  const submitted = submittedValue(state, 'kind', 'quota_threshold');
  const [kind, setKind] = useState<AlertKind>(isAlertKind(submitted) ? submitted : 'quota_threshold');
  return (
    <>
      <div className="form-row">
        <Field label="Name" name="name" state={state} testId="alert-rule-new-name" className="field-wide" input={{ autoComplete: 'off', placeholder: 'Starter tenants near their daily quota', maxLength: 100 }} />
        <Field
          label="Kind"
          name="kind"
          state={state}
          fallback={kind}
          testId="alert-rule-new-kind"
          control={(props) => <ChoiceSelect {...props} choices={ALERT_KINDS} labels={KIND_LABELS} onChoose={setKind} />}
        />
        {!isPlatformKind(kind) && (
          <Field
            label="Watches"
            name="scope"
            errorField="planId"
            state={state}
            fallback="everything"
            testId="alert-rule-new-scope"
            className="field-wide"
            control={(props) => (
              <select {...props} className="input">
                <option value="everything">Every tenant</option>
                <optgroup label="The tenants of a plan">
                  {plans.map((plan) => (
                    <option key={plan.id} value={`plan:${plan.id}`}>
                      {plan.name} ({plan.slug})
                    </option>
                  ))}
                </optgroup>
                <optgroup label="One tenant">
                  {tenants.map((tenant) => (
                    <option key={tenant.id} value={`tenant:${tenant.id}`}>
                      {tenant.name} ({tenant.slug})
                    </option>
                  ))}
                </optgroup>
              </select>
            )}
          />
        )}
      </div>
      <div className="form-row">
        <AlertParamsFields kind={kind} state={state} testPrefix="alert-rule-new" />
      </div>
      <p className="form-hint muted" data-testid="alert-rule-new-hint">
        {KIND_HINTS[kind]} Blank fields take the default shown.
      </p>
    </>
  );
}
