'use server';

import { TENANT_CAP_KINDS, type TenantCapsPatch } from '@tollgate/domain';
import { ApiError, createTenant, deleteTenant, getTenant, removeTenantOverride, setTenantOverride, updateTenant } from '../api';
import type { FormState } from '../form-state';
import { isProblem, readLimit } from '../limits';
import { firstMissing, formText as text, live, mutate, rejected } from '../mutation';
import { removeLimitWith } from './limit-writes';

/** Creates a tenant (`slug`, `name`, `planId`, `timeZone`); it is enforced from the version this publishes. */
export async function newTenant(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  const missing = firstMissing(formData, read, [
    ['slug', 'Enter a slug, e.g. initech.'],
    ['name', 'Enter a name, e.g. Initech.'],
    ['planId', 'Choose a plan.'],
  ]);
  if (missing) return missing;
  const slug = read('slug');
  return mutate(
    formData,
    (token) => createTenant(token, { slug, name: read('name'), planId: read('planId'), timeZone: read('timeZone') || 'UTC' }),
    (version) => `Tenant ${slug} created — ${live(version)}`,
    { conflict: { field: 'slug', message: `A tenant with the slug “${slug}” already exists.` } },
  );
}

/** Renames a tenant, moves it to another plan or changes its time zone. */
export async function editTenant(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  const missing = firstMissing(formData, read, [
    ['name', 'Enter a name.'],
    ['timeZone', 'Enter a time zone, e.g. UTC or Europe/Berlin.'],
  ]);
  if (missing) return missing;
  return mutate(
    formData,
    (token) => updateTenant(token, read('tenantId'), { name: read('name'), planId: read('planId'), timeZone: read('timeZone') }),
    (version) => `Saved ${read('tenantSlug')} — ${live(version)}`,
  );
}

/**
 * Sets a tenant's own caps on what its users can make (`webhookEndpoints`, `alertRules`): a whole number, or empty for
 * the installation's default.
 */
export async function saveTenantCaps(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  const caps: TenantCapsPatch = {};
  for (const kind of TENANT_CAP_KINDS) {
    const value = read(kind);
    if (value !== '' && !/^\d{1,9}$/.test(value)) return rejected(formData, `caps.${kind}`, 'Enter a whole number, or leave it empty for the default.');
    caps[kind] = value === '' ? null : Number(value);
  }
  return mutate(
    formData,
    (token) => updateTenant(token, read('tenantId'), { caps }),
    (version) => `Caps of ${read('tenantSlug')} saved — ${live(version)}`,
  );
}

/** Suspends a tenant (every check denied) or resumes it. */
export async function setTenantStatus(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  const status = read('status') === 'suspended' ? 'suspended' : 'active';
  return mutate(
    formData,
    (token) => updateTenant(token, read('tenantId'), { status }),
    (version) => `${read('tenantSlug')} ${status === 'suspended' ? 'suspended' : 'resumed'} — ${live(version)}`,
  );
}

/**
 * Sets the tenant's own version of limit `name` (its count, window, algorithm, burst and calendar). From the Add form
 * (`adding`), a name the tenant already overrides is refused instead of replacing that override unseen: it is
 * changed with Edit on its row.
 */
export async function saveOverride(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  const limit = readLimit(read);
  if (isProblem(limit)) return rejected(formData, limit.field, limit.message);
  const { name, ...override } = limit;
  const tenantId = read('tenantId');
  return mutate(
    formData,
    async (token) => {
      if (read('adding') === '1' && (await getTenant(token, tenantId)).overrides.some((o) => o.name === name)) {
        throw new ApiError({ kind: 'http', status: 409, code: 'conflict', message: `override ${name} exists` });
      }
      return setTenantOverride(token, tenantId, name, override);
    },
    (version) => `Override ${name} set — ${live(version)}`,
    { pathField: 'name', conflict: { field: 'name', message: `This tenant already overrides “${name}”: change it with Edit on its row.` } },
  );
}

/** Removes an override: the plan's limit of that name applies again. */
export async function removeOverride(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  return removeLimitWith(formData, read, 'Override', (token) => removeTenantOverride(token, read('tenantId'), read('limitName')));
}

/** Deletes a tenant (`tenantId`, `tenantSlug`) with its overrides, policies, keys and users. */
export async function removeTenant(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  return mutate(
    formData,
    (token) => deleteTenant(token, read('tenantId')),
    (version) => `Tenant ${read('tenantSlug')} deleted, with its keys and users — ${live(version)}`,
  );
}
