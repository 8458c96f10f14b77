'use server';

import { createPolicy, deletePolicy, policyLimits, updatePolicy } from '../api';
import type { FormState } from '../form-state';
import { isProblem, readLimit } from '../limits';
import { formText, live, mutate, rejected } from '../mutation';
import { addLimitFrom, editLimitWith, removeLimitWith } from './limit-writes';
import { readNewPolicy, readPolicySettings } from '../policies';

// Untrimmed: `readNewPolicy`, `readLimit` and the like trim each field as they parse it.
const text = (formData: FormData) => formText(formData, { trim: false });

/** Creates a policy with its first limit (`owner`, `name`, `method`, `pattern`, settings, `limits.0.<field>`). */
export async function newPolicy(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  const policy = readNewPolicy(read);
  if (isProblem(policy)) return rejected(formData, policy.field, policy.message);
  const limit = readLimit(read, 'limits.0.');
  if (isProblem(limit)) return rejected(formData, limit.field, limit.message);
  return mutate(
    formData,
    (token) => createPolicy(token, { ...policy, limits: [limit] }),
    (version) => `Policy ${policy.method} ${policy.pattern} created — ${live(version)}`,
  );
}

/** Changes a policy's mode, failure mode, cost and scope. */
export async function editPolicy(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  const settings = readPolicySettings(read);
  if (isProblem(settings)) return rejected(formData, settings.field, settings.message);
  return mutate(
    formData,
    (token) => updatePolicy(token, read('policyId'), settings),
    (version) => `Saved — ${live(version)}`,
  );
}

export async function removePolicy(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  return mutate(
    formData,
    (token) => deletePolicy(token, read('policyId')),
    (version) => `Policy ${read('route')} deleted — ${live(version)}`,
  );
}

export async function addPolicyLimit(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  return addLimitFrom(formData, read, 'policy', (token, limit) => policyLimits.create(token, read('policyId'), limit));
}

/** Changes a policy limit's count, window, algorithm, burst and calendar. */
export async function editPolicyLimit(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  return editLimitWith(formData, read, (token, patch) => policyLimits.update(token, read('policyId'), read('limitId'), patch));
}

export async function removePolicyLimit(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  return removeLimitWith(formData, read, 'Limit', (token) => policyLimits.remove(token, read('policyId'), read('limitId')));
}

/** Switches a policy in shadow mode to enforce: what the would-deny preview's button does. */
export async function enforcePolicy(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  return mutate(
    formData,
    (token) => updatePolicy(token, read('policyId'), { mode: 'enforce' }),
    (version) => `Policy ${read('route')} is enforced — ${live(version)}`,
  );
}
