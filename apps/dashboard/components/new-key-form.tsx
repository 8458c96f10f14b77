'use client';

import { useState } from 'react';
import { newKey } from '@/lib/actions/keys';
import { KEY_KINDS, type KeyKind } from '@/lib/api-answers';
import { attemptKey, submittedValue, type FormState } from '@/lib/form-state';
import { isKeyKind, KIND_LABELS } from '@/lib/keys';
import { CreateForm } from './create-form';
import { Field } from './form-field';
import { KeySecret } from './key-secret';
import { ChoiceSelect, NamedField, type NamedOption } from './named-select';

const FIELDS = ['kind', 'name', 'tenants', 'tenantId', 'expiresAt'];

const KIND_HINTS: Record<KeyKind, string> = {
  service: 'Calls the check API, for every tenant or only the ones listed.',
  tenant: 'A tenant’s own credential: checks for that tenant only.',
  operator: 'Automation of the admin API, with an operator’s rights.',
};

/** A new key of any kind; its secret is shown once, here, when the API answers. */
export function NewKeyForm({ tenants }: { tenants: NamedOption[] }) {
  return (
    <CreateForm
      id="key-new"
      title="New key"
      hint="The secret is shown once, when the key is created."
      action={newKey}
      submitLabel="Create key"
      errorFields={FIELDS}
      above={(state) => <KeySecret state={state} title="Your new key" />}
    >
      {(state) => (
        // Remounted with every answer: the kind (and the fields it shows) start again from what the answer holds.
        <KeyFields key={attemptKey(state)} state={state} tenants={tenants} />
      )}
    </CreateForm>
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
          control={(props) => <ChoiceSelect {...props} choices={KEY_KINDS} labels={KIND_LABELS} onChoose={setKind} />}
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
            label="Tenants"
            optional
            name="tenants"
            state={state}
            testId="key-new-tenants"
            className="field-wide"
            input={{ autoComplete: 'off', placeholder: 'all tenants, or acme, globex', spellCheck: false }}
          />
        )}
        {kind === 'tenant' && (
          <NamedField label="Tenant" name="tenantId" state={state} options={tenants} empty="No tenants yet" testId="key-new-tenant" />
        )}
        <Field
          label="Expires"
          optional
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
