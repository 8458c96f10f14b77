import { refresh } from 'next/cache';
import { redirect } from 'next/navigation';
import { ApiError } from './api';
import { formValues, type FormState } from './form-state';
import { describeFailure, endSession, requireToken } from './session';

/** An API answer that the session is over ends it here, with a redirect to the login page; any other returns. */
export async function endExpiredSession(error: unknown): Promise<void> {
  if (error instanceof ApiError && error.isUnauthenticated) {
    await endSession();
    redirect('/login?expired=1');
  }
}

/** Why a write failed, as a form shows it. An expired session ends here, with a redirect to the login page. */
export async function apiFailure(error: unknown): Promise<{ message: string; field?: string; code?: string }> {
  await endExpiredSession(error);
  if (!(error instanceof ApiError)) return { message: describeFailure(error).message };
  const message = error.kind === 'http' && error.status !== 403 ? error.message : describeFailure(error).message;
  return { message, code: error.code, ...(error.field ? { field: error.field } : {}) };
}

/** A form refused before anything was sent: the message goes next to `field`. */
export function rejected(formData: FormData, field: string | undefined, message: string): FormState {
  return { status: 'failed', message, values: formValues(formData), ...(field ? { field } : {}) };
}

/** A posted form's text fields by name, '' for one that is missing; trimmed unless `trim` is false. */
export function formText(formData: FormData, { trim = true } = {}): (name: string) => string {
  return (name) => {
    const value = String(formData.get(name) ?? '');
    return trim ? value.trim() : value;
  };
}

/** The first of the `required` fields left empty, refused with its message; none when all were filled in. */
export function firstMissing(
  formData: FormData,
  read: (name: string) => string,
  required: readonly (readonly [field: string, message: string])[],
): FormState | undefined {
  const missing = required.find(([field]) => read(field) === '');
  return missing && rejected(formData, missing[0], missing[1]);
}

interface WriteOptions {
  /** Where a 409 (a taken slug, name or e-mail) is shown, and in what words. */
  conflict?: { field: string; message: string };
  /** The field a 400 naming none is about: a value the request carries in its URL (an override's name). */
  pathField?: string;
}

/** What a successful write tells its form. */
type Done = Omit<Extract<FormState, { status: 'done' }>, 'status'>;

/**
 * Runs one write with the signed-in operator's token. On success the page is re-read and the form's state says
 * what happened (`done`); on failure it carries the API's message and field, next to which the form shows it.
 */
export async function submit<R>(
  formData: FormData,
  write: (token: string) => Promise<R>,
  done: (result: R) => Done,
  { conflict, pathField }: WriteOptions = {},
): Promise<FormState> {
  const token = await requireToken();
  let result: R;
  try {
    result = await write(token);
  } catch (error) {
    const failure = await apiFailure(error);
    if (conflict && failure.code === 'conflict') return rejected(formData, conflict.field, conflict.message);
    return rejected(formData, failure.field ?? (failure.code === 'validation_failed' ? pathField : undefined), failure.message);
  }
  refresh();
  return { status: 'done', ...done(result) };
}

interface MutateOptions<R> extends WriteOptions {
  /** The secret the answer carries (a new key's), kept in the form's state only. */
  secret?: (result: R) => string;
}

/** A write that changes the rules: it publishes a new rule set, and its success names the version (`success`). */
export function mutate<R extends { ruleVersion: number }>(
  formData: FormData,
  write: (token: string) => Promise<R>,
  success: (ruleVersion: number) => string,
  { secret, ...options }: MutateOptions<R> = {},
): Promise<FormState> {
  return submit(
    formData,
    write,
    (result) => ({ ruleVersion: result.ruleVersion, message: success(result.ruleVersion), ...(secret ? { secret: secret(result) } : {}) }),
    options,
  );
}

/** The words every success ends with. */
export function live(ruleVersion: number): string {
  return `rule set v${ruleVersion} is live`;
}
