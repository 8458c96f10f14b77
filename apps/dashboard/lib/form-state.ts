/**
 * The state of one mutation form (create, rename, delete…): what its server action answered. Pure, so the
 * client components that render it and the server actions that produce it share it.
 */
export type FormState =
  | { status: 'idle' }
  | {
      status: 'done';
      /** The rule set version the change published; none for a change that is not a rule (a user account). */
      ruleVersion?: number;
      message: string;
      /** A new key's secret: the API shows it once, so it lives in this answer only (never a URL, never storage). */
      secret?: string;
    }
  | {
      status: 'failed';
      message: string;
      /** The API's name for the field at fault (`slug`, `limits.0.windowS`), when there is one. */
      field?: string;
      /** What was posted, so the form shows it again next to the error instead of resetting. */
      values: Record<string, string>;
    };

export const IDLE: FormState = { status: 'idle' };

/** Fields whose value never travels back to the browser in a form's state: a failed form shows them empty. */
const SECRET_FIELDS: ReadonlySet<string> = new Set(['password']);

/** Every text field of a posted form (Next's own `$ACTION_…` fields and secrets left out). */
export function formValues(formData: FormData): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of formData) {
    if (typeof value === 'string' && !name.startsWith('$') && !SECRET_FIELDS.has(name)) values[name] = value;
  }
  return values;
}

/** The failure's message when it is about `field`, without the API's `field: ` prefix and capitalised. */
export function fieldError(state: FormState, field: string): string | undefined {
  if (state.status !== 'failed' || state.field !== field) return undefined;
  const message = state.message.startsWith(`${field}: `) ? state.message.slice(field.length + 2) : state.message;
  return message.charAt(0).toUpperCase() + message.slice(1);
}

/** The failure's message when no field of the form (`fields`) shows it: it goes at the top of the form. */
export function formError(state: FormState, fields: readonly string[]): string | undefined {
  if (state.status !== 'failed') return undefined;
  return state.field !== undefined && fields.includes(state.field) ? undefined : state.message;
}

/** What the field held when the form failed, else `fallback` (its value before any attempt). */
export function submittedValue(state: FormState, name: string, fallback = ''): string {
  return state.status === 'failed' ? (state.values[name] ?? fallback) : fallback;
}

const attempts = new WeakMap<FormState, number>();
let lastAttempt = 0;

/**
 * A number that changes with every answer of the action: keying a form's fields on it remounts them, so their
 * client state (rows, the chosen algorithm) starts again from what the answer holds.
 */
export function attemptKey(state: FormState): number {
  if (state.status === 'idle') return 0;
  let attempt = attempts.get(state);
  if (attempt === undefined) {
    attempt = ++lastAttempt;
    attempts.set(state, attempt);
  }
  return attempt;
}
