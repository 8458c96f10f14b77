'use client';

import { useState } from 'react';
import { newKey } from '@/lib/actions/keys';
import { KEY_KINDS, type KeyKind } from '@/lib/api-answers';
import { attemptKey, formError, submittedValue, type FormState } from '@/lib/form-state';
import { isKeyKind, KIND_LABELS } from '@/lib/keys';
import { Field } from './form-field';
import { FormAlert } from './form-messages';
import { KeySecret } from './key-secret';
import { MutationStatus, useMutation } from './mutation-status';
import { NamedSelect, type NamedOption } from './named-select';
import { SubmitButton } from './submit-button';

const FIELDS = ['kind', 'name', 'tenants', 'tenantId', 'expiresAt'];

const KIND_HINTS: Record<KeyKind, string> = {
  service: 'Calls the check API, for every tenant or only the ones listed.',
  tenant: 'A tenant’s own credential: checks for that tenant only.',
  operator: 'Automation of the admin API, with an operator’s rights.',
};

/** A new key of any kind; its secret is shown once, here, when the API answers. */
export function NewKeyForm({ tenants }: { tenants: NamedOption[] }) {
  const [state, action] = useMutation(newKey, 'key-new');

  return (
    <section className="card form-card" aria-labelledby="key-new-title" data-testid="key-new">
      <header className="plan-card-header">
        <h2 id="key-new-title">New key</h2>
        <span className="tenant-count">The secret is shown once, when the key is created.</span>
      </header>
      <KeySecret state={state} title="Your new key" />
      <form action={action} className="form-body" noValidate>
        <FormAlert message={formError(state, FIELDS)} testId="key-new-error" />
        {/* Remounted with every answer: the kind (and the fields it shows) start again from what the answer holds. */}
        <KeyFields key={attemptKey(state)} state={state} tenants={tenants} />
        <div className="form-actions">
          <SubmitButton label="Create key" pendingLabel="Creating…" testId="key-new-submit" />
          <MutationStatus statusKey="key-new" />
        </div>
      </form>
    </section>
  );
}

function KeyFields({ state, tenants }: { state: FormState; tenants: NamedOption[] }) {
  const submitted = submittedValue(state, 'kind', 'service');
  const [kind, setKind] = useState<KeyKind>(isKeyKind(submitted) ? submitted : 'service');

  return (
    <>
      <div className="form-row">
        <Field
          label="Kind"
          name="kind"
          state={state}
          fallback={kind}
          testId="key-new-kind"
          control={(props) => (
            <select {...props} className="input" onChange={(event) => isKeyKind(event.target.value) && setKind(event.target.value)}>
              {KEY_KINDS.map((value) => (
                <option key={value} value={value}>
                  {KIND_LABELS[value]}
                </option>
              ))}
            </select>
          )}
        />
        <Field
          label="Name"
          name="name"
          state={state}
          testId="key-new-name"
          className="field-wide"
          input={{ autoComplete: 'off', placeholder: 'checkout-service', spellCheck: false }}
        />
        {kind === 'service' && (
          <Field
            label={
              <>
                Tenants <span className="muted">(optional)</span>
              </>
            }
            name="tenants"
            state={state}
            testId="key-new-tenants"
            className="field-wide"
            input={{ autoComplete: 'off', placeholder: 'all tenants, or acme, globex', spellCheck: false }}
          />
        )}
        {kind === 'tenant' && (
          <Field
            label="Tenant"
            name="tenantId"
            state={state}
            fallback={tenants[0]?.id}
            testId="key-new-tenant"
            control={(props) => <NamedSelect {...props} options={tenants} empty="No tenants yet" />}
          />
        )}
        <Field
          label={
            <>
              Expires <span className="muted">(optional)</span>
            </>
          }
          name="expiresOn"
          errorField="expiresAt"
          state={state}
          testId="key-new-expires"
          input={{ type: 'date' }}
        />
      </div>
      <p className="form-hint muted" data-testid="key-new-hint">
        {KIND_HINTS[kind]} An expiry is the end of the chosen day, UTC.
      </p>
    </>
  );
}
