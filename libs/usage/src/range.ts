import { DEFAULT_RETENTION, type UsageRetention } from './store';

/**
 * How a range of usage is read: the granularity of its points (`usage_minute`, `usage_hour`, `usage_day`) and how
 * many there are. One rule for the API's series, top-N and CSV export, so that each reads the same rows.
 */
export type UsageStep = 'minute' | 'hour' | 'day';

/** The longest range read by the minute, and by the hour; anything longer is read by the day. */
export const MINUTE_STEP_UP_TO_MS = 6 * 3600_000;
export const HOUR_STEP_UP_TO_MS = 14 * 86_400_000;
/** A series has at most this many points. */
export const MAX_SERIES_POINTS = 500;

const STEP_MS: ReadonlyMap<UsageStep, number> = new Map([
  ['minute', 60_000],
  ['hour', 3600_000],
]);

export type StepChoice =
  | { ok: true; step: UsageStep; points: number }
  /** `field`: the query field to change; `problem`: why, as a client can read it. */
  | { ok: false; field: 'from' | 'to'; problem: string };

/**
 * The step of the range [from, to): by the minute up to 6 hours, by the hour up to 14 days, by the day beyond. A
 * range that starts before the retention of that step is read at the next coarser step that still holds it (minutes
 * are kept 7 days, hours 90: the hours of last week, the days of last quarter); one that starts before the days'
 * retention cannot be read at all. `timeZone` is the zone of the days (a tenant's, or UTC).
 */
export function chooseStep(from: Date, to: Date, now: Date, timeZone: string, retention: UsageRetention = DEFAULT_RETENTION): StepChoice {
  if (!(from.getTime() < to.getTime())) return { ok: false, field: 'from', problem: 'must be before to' };
  const length = to.getTime() - from.getTime();
  const kept = (days: number) => from.getTime() >= now.getTime() - days * 86_400_000;
  let step: UsageStep = length <= MINUTE_STEP_UP_TO_MS ? 'minute' : length <= HOUR_STEP_UP_TO_MS ? 'hour' : 'day';
  if (step === 'minute' && !kept(retention.minuteDays)) step = 'hour';
  if (step === 'hour' && !kept(retention.hourDays)) step = 'day';
  if (step === 'day' && !kept(retention.dayDays)) {
    return { ok: false, field: 'from', problem: `usage is kept ${retention.dayDays} days: must be after ${new Date(now.getTime() - retention.dayDays * 86_400_000).toISOString()}` };
  }
  const points = pointCount(from, to, step, timeZone);
  if (points > MAX_SERIES_POINTS) {
    return { ok: false, field: 'from', problem: `the range needs ${points} points by the ${step}, more than ${MAX_SERIES_POINTS}: shorten it` };
  }
  return { ok: true, step, points };
}

/** How many buckets of `step` overlap [from, to): from the one that holds `from` to the one that holds the range's last millisecond. */
export function pointCount(from: Date, to: Date, step: UsageStep, timeZone: string): number {
  const last = to.getTime() - 1;
  const stepMs = STEP_MS.get(step);
  if (stepMs !== undefined) return Math.floor(last / stepMs) - Math.floor(from.getTime() / stepMs) + 1;
  return (epochDay(last, timeZone) - epochDay(from.getTime(), timeZone)) + 1;
}

/** The calendar day in `timeZone` that holds `ms`, as a count of days since 1970-01-01. */
function epochDay(ms: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: 'numeric', day: 'numeric' }).formatToParts(ms);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return Date.UTC(part('year'), part('month') - 1, part('day')) / 86_400_000;
}

/** The start of the bucket of `step` that holds `at`; days in UTC (the bucket a read over every tenant starts with). */
export function bucketStart(at: Date, step: UsageStep): Date {
  const ms = STEP_MS.get(step) ?? 86_400_000;
  return new Date(Math.floor(at.getTime() / ms) * ms);
}

/** The first and the last bucket of `step` (minute or hour) that overlap [from, to). */
export function bucketsOf(step: UsageStep, from: Date, to: Date): { first: Date; last: Date } {
  return { first: bucketStart(from, step), last: bucketStart(new Date(to.getTime() - 1), step) };
}
