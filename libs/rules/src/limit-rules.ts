import type { LimitSpec } from '@tollgate/domain';
import type { LimitRule } from '@tollgate/limiter';

const DAY_S = 86_400;

/**
 * A compiled limit as the limiter engine runs it. A fixed window of exactly one day follows the calendar: it
 * resets at midnight in the tenant's time zone (UTC when none is given, which is the epoch-aligned day).
 */
export function toLimitRule(spec: LimitSpec, timeZone = 'UTC'): LimitRule {
  const base = { name: spec.name, algorithm: spec.algorithm, limit: spec.limit, ...(spec.burst === undefined ? {} : { burst: spec.burst }) };
  if (spec.algorithm === 'fixed_window' && spec.windowS === DAY_S && timeZone !== 'UTC') {
    return { ...base, windowMs: 0, calendar: { unit: 'day', timeZone } };
  }
  return { ...base, windowMs: spec.windowS * 1000 };
}
