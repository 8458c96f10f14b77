import { refresh } from 'next/cache';
import { redirect } from 'next/navigation';
import { ApiError } from './api';
import { formValues, type FormState } from './form-state';
import { describeFailure, endSession, requireToken } from './session';

/** Why a write failed, as a form shows it. An expired session ends here, with a redirect to the login page. */
export async function apiFailure(error: unknown): Promise<{ message: string; field?: string; code?: string }> {
  if (error instanceof ApiError && error.isUnauthenticated) {
    await endSession();
    redirect('/login?expired=1');
  }
  if (!(error instanceof ApiError)) return { message: describeFailure(error).message };
  const message = error.kind === 'http' && error.status !== 403 ? error.message : describeFailure(error).message;
  return { message, code: error.code, ...(error.field ? { field: error.field } : {}) };
}

/** A form refused before anything was sent: the message goes next to `field`. */
export function rejected(formData: FormData, field: string | undefined, message: string): FormState {
  return { status: 'failed', message, values: formValues(formData), ...(field ? { field } : {}) };
}

interface MutateOptions<R> {
  /** Where a 409 (a taken slug or name) is shown, and in what words. */
  conflict?: { field: string; message: string };
  /** The secret the answer carries (a new key's), kept in the form's state only. */
  secret?: (result: R) => string;
}

/**
 * Runs one write with the operator's token. Every write publishes a new rule set: on success the page is
 * re-read and the form's state names the version (`success`); on failure it carries the API's message and field.
 */
export async function mutate<R extends { ruleVersion: number }>(
  formData: FormData,
  write: (token: string) => Promise<R>,
  success: (ruleVersion: number) => string,
  { conflict, secret }: MutateOptions<R> = {},
): Promise<FormState> {
  const token = await requireToken();
  let result: R;
  try {
    result = await write(token);
  } catch (error) {
    const failure = await apiFailure(error);
    if (conflict && failure.code === 'conflict') return rejected(formData, conflict.field, conflict.message);
    return rejected(formData, failure.field, failure.message);
  }
  refresh();
  const { ruleVersion } = result;
  return { status: 'done', ruleVersion, message: success(ruleVersion), ...(secret ? { secret: secret(result) } : {}) };
}

/** The words every success ends with. */
export function live(ruleVersion: number): string {
  return `rule set v${ruleVersion} is live`;
}
