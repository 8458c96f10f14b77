import type { DenialSamples, LiveLimit, UsageSeries } from '@tollgate/domain';
import type { SearchParams } from './pagination';
import { safeZone } from './usage-chart';

/**
 * What the usage views work out from the API's answers, pure so that the pages and their tests share it: the range
 * a page shows (in its URL), times in the tenant's own zone, the fill of a limit's bar and the totals of a series.
 */

/** The ranges a usage page offers (`?range=`); the first is the default. */
export const USAGE_RANGES = ['24h', '7d', '30d'] as const;
export type UsageRange = (typeof USAGE_RANGES)[number];

const RANGE_MS: ReadonlyMap<UsageRange, number> = new Map([
  ['24h', 86_400_000],
  ['7d', 7 * 86_400_000],
  ['30d', 30 * 86_400_000],
]);

export const RANGE_LABELS: Record<UsageRange, string> = { '24h': '24 hours', '7d': '7 days', '30d': '30 days' };

function isUsageRange(value: unknown): value is UsageRange {
  return typeof value === 'string' && (USAGE_RANGES as readonly string[]).includes(value);
}

/** The `range` the URL asks for; anything else (missing, repeated, unknown) is the default. */
export function parseRange(params: SearchParams): UsageRange {
  const value = params.range;
  return isUsageRange(value) ? value : USAGE_RANGES[0];
}

/** The range's bounds, ending now: the API picks the step (hours for a day or a week, days for a month). */
export function rangeBounds(range: UsageRange, now: number = Date.now()): { from: Date; to: Date } {
  return { from: new Date(now - RANGE_MS.get(range)!), to: new Date(now) };
}

/** `path` with `?range=` set (the default left out, so the plain path is the default view). */
export function rangeHref(path: string, range: UsageRange): string {
  return range === USAGE_RANGES[0] ? path : `${path}?${new URLSearchParams({ range })}`;
}

/** A moment as the tenant's clock shows it: "2 Dec, 14:05" (the zone is said once, next to the list; UTC for a zone this runtime does not know). */
export function formatInZone(iso: string, timeZone: string, withSeconds = false): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: safeZone(timeZone),
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
    ...(withSeconds ? { second: '2-digit' } : {}),
    hourCycle: 'h23',
  }).format(date);
}

export type MeterTone = 'ok' | 'warn' | 'full';

export interface MeterView {
  /** 0–100, for the bar's width. */
  percent: number;
  tone: MeterTone;
  /** What a screen reader says of the bar, and what the page shows next to it. */
  text: string;
}

/** A limit's bar: how full it is, its tone (three quarters used: warn; nothing left: full) and its words. */
export function meterView(live: Pick<LiveLimit, 'used' | 'limit' | 'remaining'>): MeterView {
  const used = Math.max(0, live.used);
  const percent = live.limit > 0 ? Math.min(100, Math.round((used / live.limit) * 1000) / 10) : 100;
  const tone: MeterTone = live.remaining <= 0 ? 'full' : percent >= 75 ? 'warn' : 'ok';
  return { percent, tone, text: `${used.toLocaleString('en-US')} of ${live.limit.toLocaleString('en-US')} used` };
}

export interface UsageTotals {
  /** Every check counted, whatever its result (refused ones too). */
  checks: number;
  allowed: number;
  denied: number;
  shadowDenied: number;
  degraded: number;
  refused: number;
  cost: number;
}

/** A series' sums over its range. */
export function usageTotals(points: UsageSeries['points']): UsageTotals {
  const totals: UsageTotals = { checks: 0, allowed: 0, denied: 0, shadowDenied: 0, degraded: 0, refused: 0, cost: 0 };
  for (const p of points) {
    totals.allowed += p.allowed;
    totals.denied += p.denied;
    totals.shadowDenied += p.shadowDenied;
    totals.degraded += p.degraded;
    totals.refused += p.refused;
    totals.cost += p.cost;
  }
  // Each decision has one result (ADR 0015): a shadow would-deny is not also in `allowed`.
  totals.checks = totals.allowed + totals.denied + totals.shadowDenied + totals.degraded + totals.refused;
  return totals;
}

export type DenialSample = DenialSamples['items'][number];
