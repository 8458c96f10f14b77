import type { DegradedCause } from '@tollgate/domain';
import type { KeyCount, RouteCount, UsageCount, UsageResult } from './fields';
import type { UsageStep } from './range';

/**
 * Where rolled-up usage is kept and read: the seam through which a column store (ClickHouse, TimescaleDB) can
 * replace Postgres when a deployment outgrows it (docs/adr/0015-usage-counting-and-rollups.md). The worker writes
 * through `UsageWriter`; the API reads through `UsageReader`.
 */
export interface UsageWriter {
  /**
   * Makes the stored minute starting at `minute` (epoch seconds) of each tenant in `counts` (tenant id, or NO_TENANT)
   * exactly what `counts` says — absolute values, so writing the same minute twice leaves the same rows — and
   * recomputes the hours and days (in each tenant's time zone) that hold it; the same for the calls of each API key
   * (`keys`: per tenant of `counts`, per key id), whose last use becomes the minute unless it was later, and for the
   * decisions per route (`routes`: per tenant of `counts`). One transaction.
   */
  writeMinute(
    minute: number,
    counts: ReadonlyMap<string, readonly UsageCount[]>,
    keys?: ReadonlyMap<string, ReadonlyMap<string, KeyCount>>,
    routes?: ReadonlyMap<string, readonly RouteCount[]>,
  ): Promise<void>;
  /** Deletes what is older than the retention of each granularity, in batches; how many rows went. */
  deleteExpired(now: Date, retention: UsageRetention): Promise<ExpiredUsage>;
}

/** Rows deleted by retention: decisions per minute, hour and day, calls per key per minute and hour, and totals. */
export interface ExpiredUsage {
  minutes: number;
  hours: number;
  days: number;
  keyMinutes: number;
  keyHours: number;
  /** Decisions per route per minute, hour and day. */
  routeMinutes: number;
  routeHours: number;
  routeDays: number;
  /** Rows of the sums over every tenant, per tenant and per endpoint policy (per minute, hour and date). */
  totals: number;
}

/**
 * Reads rolled-up usage for the API. Every range is [from, to) read at `step` (range.ts: `chooseStep`), over the buckets
 * that overlap it; by the day, a single tenant's days are its calendar days in `timeZone`, and without a tenant a day
 * is the date each tenant's own row carries (their calendar days; UTC for decisions without a tenant).
 */
export interface UsageReader {
  /** One point per bucket of the range, oldest first, zeros where nothing was counted. */
  series(filter: UsageFilter, from: Date, to: Date, step: UsageStep, timeZone: string): Promise<UsagePoint[]>;
  /** The refused checks of the range by reason, most first (without a tenant in `filter`: every tenant's and none's). */
  refusedByReason(filter: UsageFilter, from: Date, to: Date, step: UsageStep, timeZone: string): Promise<{ reason: string; checks: number }[]>;
  /** The tenants, endpoint policies or limits that lead the range by `metric`, at most `top` of them. */
  top(query: UsageTopQuery): Promise<UsageTopEntry[]>;
  /**
   * The decisions a failure mode made over the range (Redis did not decide), by cause: one point per bucket (UTC), and
   * the `top` tenants with the most of them, most first.
   */
  degraded(from: Date, to: Date, step: UsageStep, top: number): Promise<DegradedUsage>;
  /**
   * The decisions, 429s and shadow would-denies over the range of each tenant or endpoint policy of `ids` (a list
   * page's rows), one entry per id in the order given, zeros for one without any.
   */
  summary(by: UsageSummaryBy, ids: readonly string[], from: Date, to: Date, step: UsageStep): Promise<UsageSummaryEntry[]>;
  /**
   * The routes (`METHOD /path` as checks named them, or `other`) that lead the range by `order`, of one tenant or of
   * every tenant, with their decisions per result and the limits that denied them (route × limit). Read at the range's
   * step like the other reads: by the day, one tenant's days are its calendar days in `timeZone`, and every tenant's
   * are the dates their own rows carry.
   */
  routes(query: UsageRoutesQuery): Promise<UsageRouteEntry[]>;
  /** The stored rows of the range, in order of bucket, a batch at a time (the CSV export). */
  rows(filter: UsageFilter, from: Date, to: Date, step: UsageStep, timeZone: string): AsyncIterable<UsageRow>;
}

/** Which rows count: one tenant's, one endpoint policy's, one result's (any of them left out: all). */
export interface UsageFilter {
  tenantId?: string;
  policyId?: string;
  result?: UsageResult;
}

/** Decisions of one bucket per result (`degraded`: allowed and denied without Redis) and the units charged. */
export interface UsagePoint {
  /** The bucket's start. */
  at: Date;
  allowed: number;
  denied: number;
  shadowDenied: number;
  degraded: number;
  refused: number;
  cost: number;
}

/** Degraded decisions, in all and per cause; `unknown`: counted before usage kept their cause. */
export interface DegradedCounts {
  decisions: number;
  byCause: Record<DegradedCause | 'unknown', number>;
}

/** The degraded decisions of a range: per bucket, and for the tenants with the most of them. */
export interface DegradedUsage {
  points: (DegradedCounts & { at: Date })[];
  /** Null: decisions without a tenant (none are degraded today: a tenant is known before Redis is asked). */
  tenants: (DegradedCounts & { tenantId: string | null })[];
}

export const USAGE_TOP_BY = ['tenants', 'policies', 'limits'] as const;
export type UsageTopBy = (typeof USAGE_TOP_BY)[number];
export const USAGE_TOP_METRICS = ['denied', 'deny_rate', 'cost', 'refused'] as const;
export type UsageTopMetric = (typeof USAGE_TOP_METRICS)[number];

/** A ranking over a range: the range and its step, and how many entries at most. */
interface RankedRead {
  from: Date;
  to: Date;
  step: UsageStep;
  /** A 429 rate ranks only entries with at least this many decisions (a handful of decisions makes any rate). */
  minDecisions: number;
  /** How many entries, at most. */
  top: number;
}

export interface UsageTopQuery extends RankedRead {
  by: UsageTopBy;
  metric: UsageTopMetric;
}

export const USAGE_ROUTE_ORDERS = ['deny_rate', 'decisions'] as const;
export type UsageRouteOrder = (typeof USAGE_ROUTE_ORDERS)[number];

/** `minDecisions`: `deny_rate` ranks only routes with at least this many decisions and one denial. */
export interface UsageRoutesQuery extends RankedRead {
  /** One tenant's routes (its id, or the nil UUID for decisions without a tenant); absent: every tenant's. */
  tenantId?: string;
  /** The zone of the range's days when read by the day (the tenant's; UTC when absent). */
  timeZone?: string;
  /** `deny_rate`: the share of decisions a limit refused (429s), most first; `decisions`: the most decisions first. */
  order: UsageRouteOrder;
}

/** A route's decisions over a range, per result, and per limit that denied it. */
export interface UsageRouteEntry {
  route: string;
  decisions: number;
  allowed: number;
  denied: number;
  shadowDenied: number;
  degraded: number;
  refused: number;
  /** `denied` over `decisions`. */
  denyRate: number;
  /** The limits that refused the route (`denied`) or would have (`shadowDenied`, a policy in shadow mode), most first. */
  limits: { name: string; denied: number; shadowDenied: number }[];
}

/**
 * One entry of a top-N: a tenant (`policyId` and `limit` null), an endpoint policy over every tenant (`tenantId` and
 * `limit` null), or a limit that denied (its tenant, the policy of the endpoint, and the limit's name).
 */
export interface UsageTopEntry {
  tenantId: string | null;
  policyId: string | null;
  limit: string | null;
  decisions: number;
  /** Decisions refused by a limit (429s): for a limit, those it refused. */
  denied: number;
  /** `denied` over the decisions of the tenant (and endpoint policy, for a limit) in the range. */
  denyRate: number;
  cost: number;
  /** Checks refused without a decision (tenants only: a refusal has no endpoint policy); null tenant: keys of no one. */
  refused: number;
}

export const USAGE_SUMMARY_BY = ['tenants', 'policies'] as const;
export type UsageSummaryBy = (typeof USAGE_SUMMARY_BY)[number];

/** What one tenant or endpoint policy decided over a range. */
export interface UsageSummaryEntry {
  id: string;
  decisions: number;
  /** Refused by a limit (429s). */
  denied: number;
  shadowDenied: number;
}

/** A stored row as the CSV export writes it, with the names of its tenant and policy (null: none, or deleted since). */
export interface UsageRow {
  /** The bucket's start (minute, hour), or the calendar day as `YYYY-MM-DD`. */
  bucket: string;
  tenantId: string | null;
  /** Null for no tenant, or one deleted since. */
  tenantSlug: string | null;
  tenantName: string | null;
  /** The tenant's time zone (IANA); null as for the slug. */
  tenantTimeZone: string | null;
  policyId: string | null;
  policyName: string | null;
  result: UsageResult;
  reason: string;
  decisions: number;
  cost: number;
}

/** How long each granularity is kept, in days. */
export interface UsageRetention {
  minuteDays: number;
  hourDays: number;
  dayDays: number;
}

export const DEFAULT_RETENTION: UsageRetention = { minuteDays: 7, hourDays: 90, dayDays: 400 };
