'use client';

import { useState } from 'react';
import { newAccount } from '@/lib/actions/users';
import { USER_ROLES, type UserRole } from '@/lib/api-answers';
import { attemptKey, formError, submittedValue, type FormState } from '@/lib/form-state';
import { isUserRole, ROLE_LABELS } from '@/lib/users';
import { Field } from './form-field';
import { FormAlert } from './form-messages';
import { MutationStatus, useMutation } from './mutation-status';
import { NamedSelect, type NamedOption } from './named-select';
import { SubmitButton } from './submit-button';

const FIELDS = ['email', 'name', 'role', 'tenantId', 'password'];

/** A new dashboard account: an operator, or a tenant's user who sees only that tenant's limits and keys. */
export function NewUserForm({ tenants }: { tenants: NamedOption[] }) {
  const [state, action] = useMutation(newAccount, 'user-new');

  return (
    <section className="card form-card" aria-labelledby="user-new-title" data-testid="user-new">
      <header className="plan-card-header">
        <h2 id="user-new-title">New user</h2>
        <span className="tenant-count">A tenant user sees only its tenant’s limits and keys.</span>
      </header>
      <form action={action} className="form-body" noValidate>
        <FormAlert message={formError(state, FIELDS)} testId="user-new-error" />
        {/* Remounted with every answer: the role (and the fields it shows) start again from what the answer holds. */}
        <UserFields key={attemptKey(state)} state={state} tenants={tenants} />
        <div className="form-actions">
          <SubmitButton label="Create user" pendingLabel="Creating…" testId="user-new-submit" />
          <MutationStatus statusKey="user-new" />
        </div>
      </form>
    </section>
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
        control={(props) => (
          <select {...props} className="input" onChange={(event) => isUserRole(event.target.value) && setRole(event.target.value)}>
            {USER_ROLES.map((value) => (
              <option key={value} value={value}>
                {ROLE_LABELS[value]}
              </option>
            ))}
          </select>
        )}
      />
      {role === 'tenant' && (
        <Field
          label="Tenant"
          name="tenantId"
          state={state}
          fallback={tenants[0]?.id}
          testId="user-new-tenant"
          control={(props) => <NamedSelect {...props} options={tenants} empty="No tenants yet" />}
        />
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
