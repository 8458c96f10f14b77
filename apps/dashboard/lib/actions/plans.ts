'use server';

import { createPlan, deletePlan, renamePlan as renamePlanRequest } from '../api';
import type { FormState } from '../form-state';
import { isProblem, readLimitRows } from '../limits';
import { firstMissing, formText as text, live, mutate, rejected } from '../mutation';

/** Creates a plan with its first limits (`slug`, `name`, rows `limits.<i>.<field>`). */
export async function newPlan(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  const missing = firstMissing(formData, read, [
    ['slug', 'Enter a slug, e.g. business.'],
    ['name', 'Enter a name, e.g. Business.'],
  ]);
  if (missing) return missing;
  const slug = read('slug');
  const limits = readLimitRows(read, formData.keys());
  if (isProblem(limits)) return rejected(formData, limits.field, limits.message);
  return mutate(
    formData,
    (token) => createPlan(token, { slug, name: read('name'), limits }),
    (version) => `Plan ${slug} created — ${live(version)}`,
    { conflict: { field: 'slug', message: `A plan with the slug “${slug}” already exists.` } },
  );
}

export async function renamePlan(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  const name = read('name');
  if (name === '') return rejected(formData, 'name', 'Enter a name.');
  return mutate(
    formData,
    (token) => renamePlanRequest(token, read('planId'), name),
    (version) => `Renamed to ${name} — ${live(version)}`,
  );
}

/** Deletes a plan; the API refuses (409) while tenants are on it, and its message says so. */
export async function removePlan(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  return mutate(
    formData,
    (token) => deletePlan(token, read('planId')),
    (version) => `Plan ${read('planSlug')} deleted — ${live(version)}`,
  );
}
