'use server';

import { refresh } from 'next/cache';
import { createPlanLimit, deletePlanLimit, updatePlanLimit } from '../api';
import type { UpdateLimitResponse } from '../api-answers';
import type { FormState } from '../form-state';
import { isProblem, readLimitShape } from '../limits';
import { apiFailure, formText, live, mutate, rejected } from '../mutation';
import { addLimitFrom, removeLimitWith } from './limit-writes';
import { requireToken } from '../session';

export type SaveLimitState =
  | { status: 'idle' }
  | { status: 'saved'; limitId: string; value: number; ruleVersion: number; message: string }
  | { status: 'failed'; limitId: string; submitted: string; message: string; field?: string };

const WHOLE_NUMBER = /^-?\d+$/;

/** Changes one limit of a plan; the API publishes a new rule set and answers with its version. */
export async function saveLimit(_previous: SaveLimitState, formData: FormData): Promise<SaveLimitState> {
  const token = await requireToken();
  const planId = String(formData.get('planId') ?? '');
  const limitId = String(formData.get('limitId') ?? '');
  const submitted = String(formData.get('limit') ?? '').trim();

  // Zero and negative numbers go to the API, which says what the range is.
  if (!WHOLE_NUMBER.test(submitted)) {
    return { status: 'failed', limitId, submitted, message: 'Enter a whole number.', field: 'limit' };
  }

  let saved: UpdateLimitResponse;
  try {
    saved = await updatePlanLimit(token, planId, limitId, { limit: Number(submitted) });
  } catch (error) {
    const { message, field } = await apiFailure(error);
    return { status: 'failed', limitId, submitted, message, ...(field ? { field } : {}) };
  }

  refresh();
  return {
    status: 'saved',
    limitId,
    value: saved.limit.limit,
    ruleVersion: saved.ruleVersion,
    message: `Saved — ${live(saved.ruleVersion)}`,
  };
}

// Untrimmed: `readLimit` and `readLimitShape` trim each field as they parse it.
const text = (formData: FormData) => formText(formData, { trim: false });

/** Adds a limit to a plan (`name`, `windowAmount` + `windowUnit`, `limit`, `algorithm`, `burst`, `calendar`). */
export async function addLimit(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  return addLimitFrom(formData, read, 'plan', (token, limit) => createPlanLimit(token, read('planId'), limit));
}

/** Changes a limit's window, algorithm, burst and calendar (its count is saved inline by `saveLimit`). */
export async function editLimit(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  const shape = readLimitShape(read);
  if (isProblem(shape)) return rejected(formData, shape.field, shape.message);
  return mutate(
    formData,
    (token) => updatePlanLimit(token, read('planId'), read('limitId'), shape),
    (version) => `Saved — ${live(version)}`,
  );
}

export async function removeLimit(_previous: FormState, formData: FormData): Promise<FormState> {
  const read = text(formData);
  return removeLimitWith(formData, read, 'Limit', (token) => deletePlanLimit(token, read('planId'), read('limitId')));
}
