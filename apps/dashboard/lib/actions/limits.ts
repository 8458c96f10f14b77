'use server';

import { refresh } from 'next/cache';
import { redirect } from 'next/navigation';
import { ApiError, updatePlanLimit } from '../api';
import type { UpdateLimitResponse } from '../api-types';
import { describeFailure, endSession, requireToken } from '../session';

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

  if (!WHOLE_NUMBER.test(submitted)) {
    return { status: 'failed', limitId, submitted, message: 'Enter a whole number.', field: 'limit' };
  }

  let saved: UpdateLimitResponse;
  try {
    saved = await updatePlanLimit(token, planId, limitId, Number(submitted));
  } catch (error) {
    if (error instanceof ApiError && error.isUnauthenticated) {
      await endSession();
      redirect('/login?expired=1');
    }
    const message = error instanceof ApiError && error.kind === 'http' ? error.message : describeFailure(error).message;
    const field = error instanceof ApiError ? error.field : undefined;
    return { status: 'failed', limitId, submitted, message, ...(field ? { field } : {}) };
  }

  refresh();
  return {
    status: 'saved',
    limitId,
    value: saved.limit.limit,
    ruleVersion: saved.ruleVersion,
    message: `Saved — rule set v${saved.ruleVersion} is live`,
  };
}
