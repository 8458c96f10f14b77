import { z } from 'zod';
import type { UsageRetention } from './store';

/**
 * The retention of usage, read by the worker (which deletes what is older) and the API (which reads a range at the
 * step whose rows are still there): the same variables for both, so that they agree.
 */
export const usageRetentionEnv = {
  /**
   * Days each granularity of usage is kept. Minutes at least 3: a usage hash can be rolled up until it expires (48 h
   * after its first write, one more hour once rolled up), and the rollup compares it with the minute's stored rows.
   */
  USAGE_RETENTION_MINUTE_DAYS: z.coerce.number().int().min(3).max(3650).default(7),
  /** Hours at least 3 days: a day is recomputed from the hours inside it, and the oldest day rolled up may be that old. */
  USAGE_RETENTION_HOUR_DAYS: z.coerce.number().int().min(3).max(3650).default(90),
  USAGE_RETENTION_DAY_DAYS: z.coerce.number().int().min(1).max(36_500).default(400),
};

export function retentionOf(e: { USAGE_RETENTION_MINUTE_DAYS: number; USAGE_RETENTION_HOUR_DAYS: number; USAGE_RETENTION_DAY_DAYS: number }): UsageRetention {
  return { minuteDays: e.USAGE_RETENTION_MINUTE_DAYS, hourDays: e.USAGE_RETENTION_HOUR_DAYS, dayDays: e.USAGE_RETENTION_DAY_DAYS };
}
