import type { FormState } from '../form-state';
import { isProblem, type LimitInput, readLimit, readLimitShape, readWholeNumber } from '../limits';
import { live, mutate, rejected } from '../mutation';

/*
 * What the limit actions of plans, policies and tenants share. Not a 'use server' module: these take functions,
 * and only the actions that call them (lib/actions/limits.ts, policies.ts, tenants.ts) are server actions.
 */

type Read = (name: string) => string;

/** Adds a whole limit read from the form (`name`, window, `limit`, algorithm, burst, calendar) to a plan or a policy. */
export async function addLimitFrom(
  formData: FormData,
  read: Read,
  owner: 'plan' | 'policy',
  write: (token: string, limit: LimitInput) => Promise<{ ruleVersion: number }>,
): Promise<FormState> {
  const limit = readLimit(read);
  if (isProblem(limit)) return rejected(formData, limit.field, limit.message);
  return mutate(
    formData,
    (token) => write(token, limit),
    (version) => `Limit ${limit.name} added — ${live(version)}`,
    { conflict: { field: 'name', message: `This ${owner} already has a limit named “${limit.name}”.` } },
  );
}

/** Changes a plan's or a policy's limit: its count, window, algorithm, burst and calendar, as one form edits them. */
export async function editLimitWith(
  formData: FormData,
  read: Read,
  write: (token: string, patch: Omit<LimitInput, 'name'>) => Promise<{ ruleVersion: number }>,
): Promise<FormState> {
  const count = readWholeNumber(read('limit'));
  if (count === undefined || count === 0) return rejected(formData, 'limit', 'Enter a whole number of 1 or more.');
  const shape = readLimitShape(read);
  if (isProblem(shape)) return rejected(formData, shape.field, shape.message);
  return mutate(
    formData,
    (token) => write(token, { limit: count, ...shape }),
    (version) => `Saved — ${live(version)}`,
  );
}

/** Removes a limit (`what`: Limit, Override) named in the message by the form's `limitName`. */
export async function removeLimitWith(formData: FormData, read: Read, what: string, remove: (token: string) => Promise<{ ruleVersion: number }>): Promise<FormState> {
  return mutate(formData, remove, (version) => `${what} ${read('limitName')} removed — ${live(version)}`);
}
