'use server';

import { createAccount, deleteAccount, type NewAccount, updateAccount } from '../api';
import type { FormState } from '../form-state';
import { firstMissing, formText as text, rejected, submit } from '../mutation';

/** A password is taken as typed: spaces are characters of it. */
const password = (formData: FormData) => String(formData.get('password') ?? '');

const NO_PASSWORD = 'Enter a password of 12 characters or more.';

/** Creates an operator, or a tenant's user who sees only that tenant (`email`, `name`, `role`, `tenantId`, `password`). */
export async function newAccount(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  const missing = firstMissing(formData, read, [
    ['email', 'Enter an e-mail address.'],
    ['name', 'Enter a name, e.g. Acme operations.'],
  ]);
  if (missing) return missing;
  const email = read('email');
  const name = read('name');
  const role = read('role');
  if (role !== 'operator' && role !== 'tenant') return rejected(formData, 'role', 'Choose a role.');
  const tenantId = read('tenantId');
  if (role === 'tenant' && tenantId === '') return rejected(formData, 'tenantId', 'Choose the tenant the user belongs to.');
  if (password(formData) === '') return rejected(formData, 'password', NO_PASSWORD);
  // Its length is the API's call, which names the rule.
  const account: NewAccount = role === 'tenant' ? { email, name, role, tenantId, password: password(formData) } : { email, name, role, password: password(formData) };
  return submit(
    formData,
    (token) => createAccount(token, account),
    (created) => ({ message: `User ${created.email} created${created.tenant ? ` for tenant ${created.tenant.slug}` : ''}` }),
    { conflict: { field: 'email', message: `A user with the e-mail “${email}” already exists.` } },
  );
}

export async function renameAccount(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  const name = read('name');
  if (name === '') return rejected(formData, 'name', 'Enter a name.');
  return submit(
    formData,
    (token) => updateAccount(token, read('userId'), { name }),
    (updated) => ({ message: `${updated.email} renamed to ${updated.name}` }),
  );
}

/** A new password: every session of the account ends, so whoever knew the old one is signed out. */
export async function setAccountPassword(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  if (password(formData) === '') return rejected(formData, 'password', NO_PASSWORD);
  return submit(
    formData,
    (token) => updateAccount(token, read('userId'), { password: password(formData) }),
    (updated) => ({ message: `New password set for ${updated.email}; their sessions have ended` }),
  );
}

/** Deletes an account; the API refuses (409) to delete the caller's own. */
export async function removeAccount(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  return submit(
    formData,
    (token) => deleteAccount(token, read('userId')),
    () => ({ message: `User ${read('email')} deleted` }),
  );
}
