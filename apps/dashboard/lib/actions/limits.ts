'use server';

import { planLimits } from '../api';
import type { FormState } from '../form-state';
import { formText } from '../mutation';
import { addLimitFrom, editLimitWith, removeLimitWith } from './limit-writes';

// Untrimmed: `readLimit` and `readLimitShape` trim each field as they parse it.
const text = (formData: FormData) => formText(formData, { trim: false });

/** Adds a limit to a plan (`name`, `windowAmount` + `windowUnit`, `limit`, `algorithm`, `burst`, `calendar`). */
export async function addLimit(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  return addLimitFrom(formData, read, 'plan', (token, limit) => planLimits.create(token, read('planId'), limit));
}

/** Changes a plan limit's count, window, algorithm, burst and calendar. */
export async function editLimit(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  return editLimitWith(formData, read, (token, patch) => planLimits.update(token, read('planId'), read('limitId'), patch));
}

export async function removeLimit(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  return removeLimitWith(formData, read, 'Limit', (token) => planLimits.remove(token, read('planId'), read('limitId')));
}
