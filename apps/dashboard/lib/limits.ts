import { ALGORITHMS, CALENDAR_WINDOW_S, CALENDARS, DAY_S, DEFAULT_ALGORITHM, MAX_WINDOW_S, usesBurst, type Calendar, type NewLimit } from '@tollgate/domain';

/**
 * What a limit form offers and how it reads back. Pure, so client components (the forms) and server actions
 * (which check what was posted before calling the API) share one definition.
 */

/** The engine's algorithms and which of them take a burst, as the API names them (one list, in @tollgate/domain). */
export { ALGORITHMS, MAX_WINDOW_S, usesBurst };

/** What the Calendar select offers: no calendar (a window of its own length), or one of the API's calendars. */
export const CALENDAR_CHOICES = [
  { value: 'none', label: 'None (every window)' },
  { value: 'day', label: 'Calendar day (from the tenant\'s midnight)' },
  { value: 'month', label: 'Calendar month (from the 1st)' },
] as const satisfies readonly { value: Calendar | 'none'; label: string }[];

// Fails to compile when the API gains a calendar the select above does not offer.
type MissingCalendar = Exclude<Calendar, (typeof CALENDAR_CHOICES)[number]['value']>;
const _everyCalendar: [MissingCalendar] extends [never] ? true : MissingCalendar = true;

export const WINDOW_UNITS = [
  { value: 'seconds', seconds: 1 },
  { value: 'minutes', seconds: 60 },
  { value: 'hours', seconds: 3_600 },
  { value: 'days', seconds: DAY_S },
] as const;
export type WindowUnit = (typeof WINDOW_UNITS)[number]['value'];

/** A window in seconds as the form shows it: the largest unit that divides it, 7200 → 2 hours. */
export function splitWindow(windowS: number): { amount: number; unit: WindowUnit } {
  const unit = [...WINDOW_UNITS].reverse().find((u) => windowS >= u.seconds && windowS % u.seconds === 0) ?? WINDOW_UNITS[0];
  return { amount: windowS / unit.seconds, unit: unit.value };
}

const WHOLE_NUMBER = /^\d+$/;

/** A whole number typed into a form, or undefined when it is not one (blank, negative, 1.5, 1e3). */
export function readWholeNumber(text: string): number | undefined {
  const trimmed = text.trim();
  return WHOLE_NUMBER.test(trimmed) ? Number(trimmed) : undefined;
}

/** "2" + "hours" → 7200; undefined when the amount is not a positive whole number or the unit is unknown. */
export function toWindowSeconds(amount: string, unit: string): number | undefined {
  const count = readWholeNumber(amount);
  const seconds = WINDOW_UNITS.find((u) => u.value === unit)?.seconds;
  return count === undefined || count === 0 || seconds === undefined ? undefined : count * seconds;
}

/**
 * A limit as the API takes it (`NewLimit` of @tollgate/domain; `calendar` only when the form posts one). Forms
 * name its fields with a `prefix`: `limits.0.` for a row of the new-plan form.
 */
export type LimitInput = Pick<NewLimit, 'name' | 'windowS' | 'limit' | 'algorithm' | 'burst'> & Partial<Pick<NewLimit, 'calendar'>>;

/** Why a posted limit cannot be sent: the API's name for the field, so the message lands next to it. */
export interface FieldProblem {
  field: string;
  message: string;
}

type Read = (name: string) => string;

/** The calendar a form posted: absent (a form without the select), none (null), or one of the API's. */
function readCalendar(read: Read, prefix: string): { calendar?: Calendar | null } | FieldProblem {
  const value = read(`${prefix}calendar`);
  if (value === '') return {};
  if (value === 'none') return { calendar: null };
  const calendar = CALENDARS.find((c) => c === value);
  return calendar ? { calendar } : { field: `${prefix}calendar`, message: 'Choose none, or a calendar day or month.' };
}

/** The window, algorithm, burst and calendar of a limit (what its Edit form changes). */
export function readLimitShape(read: Read, prefix = ''): Omit<LimitInput, 'name' | 'limit'> | FieldProblem {
  const calendar = readCalendar(read, prefix);
  if (isProblem(calendar)) return calendar;
  const posted = read(`${prefix}algorithm`) || DEFAULT_ALGORITHM;
  const algorithm = ALGORITHMS.find((a) => a === posted);
  if (!algorithm) return { field: `${prefix}algorithm`, message: 'Choose one of the algorithms.' };
  if (calendar.calendar) {
    // The calendar sets the window: the window inputs are not read.
    if (algorithm !== 'fixed_window') return { field: `${prefix}calendar`, message: 'Only a fixed window follows the calendar.' };
    return { windowS: CALENDAR_WINDOW_S[calendar.calendar], algorithm, burst: null, ...calendar };
  }
  const windowS = toWindowSeconds(read(`${prefix}windowAmount`), read(`${prefix}windowUnit`));
  if (windowS === undefined) return { field: `${prefix}windowS`, message: 'Enter a whole number of 1 or more.' };
  if (windowS > MAX_WINDOW_S) return { field: `${prefix}windowS`, message: 'The longest window is 366 days.' };
  if (!usesBurst(algorithm)) return { windowS, algorithm, burst: null, ...calendar };
  // Blank means "the limit": the API takes null as the default capacity.
  const burstText = read(`${prefix}burst`).trim();
  if (burstText === '') return { windowS, algorithm, burst: null, ...calendar };
  const burst = readWholeNumber(burstText);
  if (burst === undefined || burst === 0) return { field: `${prefix}burst`, message: 'Enter a whole number of 1 or more, or leave it blank.' };
  return { windowS, algorithm, burst, ...calendar };
}

/** A whole new limit: its name, count and shape. */
export function readLimit(read: Read, prefix = ''): LimitInput | FieldProblem {
  const name = read(`${prefix}name`).trim();
  if (name === '') return { field: `${prefix}name`, message: 'Enter a name, e.g. minute.' };
  const limit = readWholeNumber(read(`${prefix}limit`));
  if (limit === undefined || limit === 0) return { field: `${prefix}limit`, message: 'Enter a whole number of 1 or more.' };
  const shape = readLimitShape(read, prefix);
  return isProblem(shape) ? shape : { name, limit, ...shape };
}

export function isProblem<T extends object>(value: T | FieldProblem): value is FieldProblem {
  return 'field' in value;
}

const ROW_NAME = /^limits\.(\d+)\.name$/;

/** The rows of the new-plan form (`limits.<i>.<field>`), in order; the first row that cannot be sent stops it. */
export function readLimitRows(read: Read, names: Iterable<string>): LimitInput[] | FieldProblem {
  const rows = [...names]
    .map((name) => ROW_NAME.exec(name)?.[1])
    .filter((index): index is string => index !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  if (rows.length === 0) return { field: 'limits', message: 'Give the plan at least one limit.' };
  const limits: LimitInput[] = [];
  for (const row of rows) {
    const limit = readLimit(read, `limits.${row}.`);
    if (isProblem(limit)) return limit;
    limits.push(limit);
  }
  return limits;
}
