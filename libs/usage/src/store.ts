import type { UsageCount } from './fields';

/**
 * Where rolled-up usage is kept and read: the seam through which a column store (ClickHouse, TimescaleDB) can
 * replace Postgres when a deployment outgrows it (docs/adr/0015-usage-counting-and-rollups.md). The worker writes
 * through `UsageWriter`; the API reads through `UsageReader`.
 */
export interface UsageWriter {
  /**
   * Makes the stored minute starting at `minute` (epoch seconds) of each tenant in `counts` (tenant id, or NO_TENANT)
   * exactly what `counts` says — absolute values, so writing the same minute twice leaves the same rows — and
   * recomputes the hours and days (in each tenant's time zone) that hold it. One transaction.
   */
  writeMinute(minute: number, counts: ReadonlyMap<string, readonly UsageCount[]>): Promise<void>;
  /** Deletes what is older than the retention of each granularity, in batches; how many rows went. */
  deleteExpired(now: Date, retention: UsageRetention): Promise<{ minutes: number; hours: number; days: number }>;
}

/** How long each granularity is kept, in days. */
export interface UsageRetention {
  minuteDays: number;
  hourDays: number;
  dayDays: number;
}

export const DEFAULT_RETENTION: UsageRetention = { minuteDays: 7, hourDays: 90, dayDays: 400 };
