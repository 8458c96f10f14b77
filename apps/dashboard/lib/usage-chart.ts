import type { UsageSeries } from '@tollgate/domain';

/**
 * What the usage chart needs of a series beyond the API's figures, kept pure so the chart, its table and their
 * tests share it. The counts are the API's as they are; only the 429 rate of a bucket (denied over decisions, which
 * the API leaves to its readers) and the labels are worked out here.
 */

export type UsagePoint = UsageSeries['points'][number];
export type UsageStep = UsageSeries['step'];

/** A vertical line on the time axis with a short label (`v12`) and, for the tooltip and the table, a longer one. */
export interface ChartMarker {
  /** ISO 8601 time of the line; a marker outside the series' range is left out. */
  at: string;
  /** Drawn at the top of the line: keep it short. */
  label: string;
  /** Read by screen readers and shown on hover: "Rule set v12 published by ops@example.com". */
  description?: string;
}

type Counts = Pick<UsagePoint, 'allowed' | 'denied' | 'shadowDenied' | 'degraded'>;

/**
 * Decisions of a bucket: each has one result, so they are allowed, denied, shadow would-deny (admitted) and degraded
 * (decided without Redis) together. Refused requests (bad key, suspended tenant) were never decided.
 */
export function decisionsOf(point: Counts): number {
  return point.allowed + point.denied + point.shadowDenied + point.degraded;
}

/** Admitted with the limiter's decision: allowed, and the would-denies of policies in shadow mode. */
export function admittedOf(point: Pick<UsagePoint, 'allowed' | 'shadowDenied'>): number {
  return point.allowed + point.shadowDenied;
}

/** The share of a bucket's decisions that were 429s, or null when it had none (nothing to draw, not 0 %). */
export function denyRateOf(point: Counts): number | null {
  const decisions = decisionsOf(point);
  return decisions === 0 ? null : point.denied / decisions;
}

export function formatRate(rate: number | null): string {
  if (rate === null) return '—';
  if (rate === 0) return '0 %';
  const percent = rate * 100;
  if (percent < 0.1) return '< 0.1 %';
  return `${percent.toLocaleString('en-US', { maximumFractionDigits: percent < 10 ? 1 : 0 })} %`;
}

const STEP_MS: Record<UsageStep, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** How long a bucket of this step lasts (a calendar day is taken as 24 h, as the axis draws it). */
export function stepMs(step: UsageStep): number {
  return STEP_MS[step];
}

/** A bucket's start as people read it, in the series' zone: "14:05", "Dec 2, 14:00", "Dec 2". */
export function bucketLabel(at: string, step: UsageStep, timeZone: string, withDate = step !== 'minute'): string {
  const time = { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' } as const;
  const date = { month: 'short', day: 'numeric' } as const;
  const options: Intl.DateTimeFormatOptions = step === 'day' ? date : withDate ? { ...date, ...time } : time;
  return new Intl.DateTimeFormat('en-US', { ...options, timeZone: safeZone(timeZone) }).format(new Date(at));
}

/** The label of a whole bucket for the tooltip and the table: its start, with the date, and the zone. */
export function bucketTitle(at: string, step: UsageStep, timeZone: string): string {
  return `${bucketLabel(at, step, timeZone, true)}${step === 'day' ? '' : ` ${zoneName(timeZone)}`}`;
}

function zoneName(timeZone: string): string {
  return safeZone(timeZone) === 'UTC' ? 'UTC' : timeZone;
}

/** A zone the browser does not know (the API's list may be newer) is shown in UTC rather than breaking the page. */
export function safeZone(timeZone: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return timeZone;
  } catch {
    return 'UTC';
  }
}

/**
 * Which buckets get a label on the time axis: about one every `minGapPx` pixels, on round times where the step
 * allows (every 5, 10, 15, 30 minutes, 1, 2, 3, 6, 12 hours, 1, 2, 7 days), so a narrow chart keeps few.
 */
export function axisTicks(points: readonly Pick<UsagePoint, 'at'>[], step: UsageStep, widthPx: number, minGapPx = 80): string[] {
  if (points.length === 0 || widthPx <= 0) return [];
  const most = Math.max(2, Math.floor(widthPx / minGapPx));
  const every = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440, 2880, 10080, 20160, 43200]
    .map((minutes) => (minutes * 60_000) / stepMs(step))
    .filter((n) => Number.isInteger(n) && n >= 1)
    .find((n) => points.length / n <= most) ?? Math.ceil(points.length / most);
  const unit = every * stepMs(step);
  // Round times are measured from the epoch, in UTC: whole hours are whole hours in most zones too.
  // Days are the series' own calendar days (a tenant's zone): every n-th of them rather than epoch multiples.
  return points.filter((p, i) => (step === 'day' ? i % every === 0 : Date.parse(p.at) % unit === 0)).map((p) => p.at);
}

/** The top of the rate axis: a little above the highest rate, rounded up, never under 5 % nor over 100 %. */
export function rateAxisMax(points: readonly Counts[]): number {
  const highest = Math.max(0, ...points.map((p) => denyRateOf(p) ?? 0));
  const stops = [0.05, 0.1, 0.2, 0.25, 0.5, 0.75, 1];
  return stops.find((s) => s >= highest) ?? 1;
}

/** The markers inside the range, oldest first. */
export function markersInRange(markers: readonly ChartMarker[], from: string, to: string): ChartMarker[] {
  const start = Date.parse(from);
  const end = Date.parse(to);
  return markers
    .filter((m) => {
      const at = Date.parse(m.at);
      return !Number.isNaN(at) && at >= start && at <= end;
    })
    .sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}
