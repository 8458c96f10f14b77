'use server';

import { refresh } from 'next/cache';
import { createPlanLimit, deletePlanLimit, updatePlanLimit } from '../api';
import type { UpdateLimitResponse } from '../api-answers';
import type { FormState } from '../form-state';
import { isProblem, readLimit, readLimitShape } from '../limits';
import { apiFailure, live, mutate, rejected } from '../mutation';
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

const text = (formData: FormData) => (name: string) => String(formData.get(name) ?? '');

/** Adds a limit to a plan (`name`, `windowAmount` + `windowUnit`, `limit`, `algorithm`, `burst`). */
export async function addLimit(_previous: FormState, formData: FormData): Promise<FormState> {
  const planId = text(formData)('planId');
  const limit = readLimit(text(formData));
  if (isProblem(limit)) return rejected(formData, limit.field, limit.message);
  return mutate(
    formData,
    (token) => createPlanLimit(token, planId, limit),
    (version) => `Limit ${limit.name} added — ${live(version)}`,
    { conflict: { field: 'name', message: `This plan already has a limit named “${limit.name}”.` } },
  );
}

/** Changes a limit's window, algorithm and burst (its count is saved inline by `saveLimit`). */
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
  return mutate(
    formData,
    (token) => deletePlanLimit(token, read('planId'), read('limitId')),
    (version) => `Limit ${read('limitName')} removed — ${live(version)}`,
  );
}
