'use client';

import { useState } from 'react';
import { newAccount } from '@/lib/actions/users';
import { USER_ROLES, type UserRole } from '@/lib/api-answers';
import { attemptKey, submittedValue, type FormState } from '@/lib/form-state';
import { isUserRole, ROLE_LABELS } from '@/lib/users';
import { CreateForm } from './create-form';
import { Field } from './form-field';
import { ChoiceSelect, NamedField, type NamedOption } from './named-select';

const FIELDS = ['email', 'name', 'role', 'tenantId', 'password'];

/** A new dashboard account: an operator, or a tenant's user who sees only that tenant's limits and keys. */
export function NewUserForm({ tenants }: { tenants: NamedOption[] }) {
  return (
    <CreateForm
      id="user-new"
      title="New user"
      hint="A tenant user sees only its tenant’s limits and keys."
      action={newAccount}
      submitLabel="Create user"
      errorFields={FIELDS}
    >
      {(state) => (
        // Remounted with every answer: the role (and the fields it shows) start again from what the answer holds.
        <UserFields key={attemptKey(state)} state={state} tenants={tenants} />
      )}
    </CreateForm>
  );
}

function UserFields({ state, tenants }: { state: FormState; tenants: NamedOption[] }) {
  const submitted = submittedValue(state, 'role', 'tenant');
  const [role, setRole] = useState<UserRole>(isUserRole(submitted) ? submitted : 'tenant');

  return (
    <div className="form-row">
      <Field
        label="E-mail"
        name="email"
        state={state}
        testId="user-new-email"
        className="field-wide"
        input={{ type: 'email', autoComplete: 'off', placeholder: 'ops@acme.example', spellCheck: false }}
      />
      <Field label="Name" name="name" state={state} testId="user-new-name" className="field-wide" input={{ autoComplete: 'off', placeholder: 'Acme operations' }} />
      <Field
        label="Role"
        name="role"
        state={state}
        fallback={role}
        testId="user-new-role"
        control={(props) => <ChoiceSelect {...props} choices={USER_ROLES} labels={ROLE_LABELS} onChoose={setRole} />}
      />
      {role === 'tenant' && (
        <NamedField label="Tenant" name="tenantId" state={state} options={tenants} empty="No tenants yet" testId="user-new-tenant" />
      )}
      <Field
        label="Password"
        name="password"
        state={state}
        testId="user-new-password"
        input={{ type: 'password', autoComplete: 'new-password', placeholder: '12 characters or more' }}
      />
    </div>
  );
}
