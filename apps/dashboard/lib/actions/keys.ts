'use server';

import { createKey, revokeKey, rotateKey, type NewKey } from '../api';
import type { FormState } from '../form-state';
import { expiryFromDate, isKeyKind, parseTenantSlugs, readOverlap } from '../keys';
import { formText as text, live, mutate, rejected } from '../mutation';

/**
 * Creates a key (`kind`, `name`, `tenants` for a service key, `tenantId` for a tenant key, `expiresOn`). Its
 * secret comes back in the form's state only: the API never shows it again.
 */
export async function newKey(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  const kind = read('kind');
  const name = read('name');
  if (!isKeyKind(kind)) return rejected(formData, 'kind', 'Choose a kind of key.');
  if (name === '') return rejected(formData, 'name', 'Enter a name, e.g. checkout-service.');
  const expiresAt = expiryFromDate(read('expiresOn'));
  if (expiresAt === null) return rejected(formData, 'expiresAt', 'Choose a day from today on, or leave it blank.');
  const expiry = expiresAt ? { expiresAt } : {};

  let key: NewKey;
  if (kind === 'service') {
    const tenants = parseTenantSlugs(read('tenants'));
    // No tenants named: the key checks every tenant (the API refuses an empty list, which would say neither).
    key = { kind, name, ...(tenants.length > 0 ? { tenants } : {}), ...expiry };
  } else if (kind === 'tenant') {
    const tenantId = read('tenantId');
    if (tenantId === '') return rejected(formData, 'tenantId', 'Choose the tenant the key belongs to.');
    key = { kind, name, tenantId, ...expiry };
  } else {
    key = { kind, name, ...expiry };
  }
  return mutate(
    formData,
    (token) => createKey(token, key),
    (version) => `Key ${name} created — ${live(version)}`,
    { secret: (created) => created.key },
  );
}

/** Revokes a key: it is refused from the rule set this publishes. */
export async function revokeApiKey(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  return mutate(
    formData,
    (token) => revokeKey(token, read('keyId')),
    (version) => `Key ${read('keyName')} revoked — ${live(version)}`,
  );
}

/** Gives a key a new secret; the old one keeps working for `overlapSeconds` (none, an hour, a day). */
export async function rotateApiKey(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  const overlap = readOverlap(read('overlapSeconds'));
  return mutate(
    formData,
    (token) => rotateKey(token, read('keyId'), overlap),
    (version) => `Key ${read('keyName')} rotated — ${live(version)}`,
    { secret: (rotated) => rotated.key },
  );
}
