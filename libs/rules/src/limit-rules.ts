import { CALENDAR_WINDOW_S, type LimitSpec } from '@tollgate/domain';
import type { LimitRule } from '@tollgate/limiter';

/**
 * A compiled limit as the limiter engine runs it. A limit with a calendar resets at midnight (day) or on the 1st
 * (month) in the tenant's time zone; every other window is epoch-aligned, a day of 86,400 s included.
 */
export function toLimitRule(spec: LimitSpec, timeZone = 'UTC'): LimitRule {
  const base = { name: spec.name, algorithm: spec.algorithm, limit: spec.limit, ...(spec.burst === undefined ? {} : { burst: spec.burst }) };
  // A UTC day is the epoch-aligned day: the same windows and the same counters as before calendars were explicit.
  if (spec.calendar && !(spec.calendar === 'day' && timeZone === 'UTC')) {
    return { ...base, windowMs: 0, calendar: { unit: spec.calendar, timeZone } };
  }
  return { ...base, windowMs: (spec.calendar ? CALENDAR_WINDOW_S[spec.calendar] : spec.windowS) * 1000 };
}
