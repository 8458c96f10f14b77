import type { UsageSeries } from '@tollgate/domain';
import type { SearchParams } from './pagination';
import { type ChartMarker, decisionsOf } from './usage-chart';

/**
 * The time range of a usage page as its URL keeps it: `?range=1h|6h|24h|7d|30d` (ending now), or `?from=&to=` (a custom
 * range in UTC, as the `datetime-local` inputs give it: `2026-12-01T10:00`, or ISO 8601 times with an offset). Pure, so the pages and their tests
 * share it. Anything else in the URL is refused with a message, and the default range is shown instead.
 */

export const PRESET_RANGES = [
  { id: '1h', label: '1 h', ms: 3_600_000 },
  { id: '6h', label: '6 h', ms: 6 * 3_600_000 },
  { id: '24h', label: '24 h', ms: 86_400_000 },
  { id: '7d', label: '7 d', ms: 7 * 86_400_000 },
  { id: '30d', label: '30 d', ms: 30 * 86_400_000 },
] as const;
export type PresetRange = (typeof PRESET_RANGES)[number]['id'];
export const DEFAULT_RANGE: PresetRange = '24h';

/** The longest custom range: what the API still holds by the day (400 days). */
const MAX_CUSTOM_MS = 400 * 86_400_000;

export interface TimeRange {
  /** The preset, or 'custom'. */
  id: PresetRange | 'custom';
  from: Date;
  to: Date;
  /** Whether the range ends now (a preset): its page refreshes itself. */
  live: boolean;
  /** Why the URL's range was not used, when it was not. */
  problem?: string;
  /** What the inputs of a custom range show: `YYYY-MM-DDTHH:mm` in UTC. */
  fromInput: string;
  toInput: string;
}

/**
 * `2026-12-01T10:00` (or with seconds) as UTC, as the inputs give it, or an ISO 8601 time with its offset
 * (`2026-12-04T23:40:00Z`, `…T23:40:00.250+01:00`), as a script or a link from elsewhere writes it; anything else is
 * not a time here.
 */
const TIME_INPUT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?$/;

function parseInput(value: string): Date | null {
  const match = TIME_INPUT.exec(value);
  if (!match) return null;
  const [y, mo, d, h, mi] = match.slice(1, 6).map(Number) as [number, number, number, number, number];
  const seconds = Number(match[6] ?? 0);
  const ms = Number((match[7] ?? '0').padEnd(3, '0').slice(0, 3));
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, seconds, ms));
  // 2026-02-31 rolls over into March: not a time that exists.
  if (Number.isNaN(date.getTime()) || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d || h > 23 || mi > 59 || seconds > 59) return null;
  const offset = offsetMinutes(match[8]);
  return offset === null ? null : new Date(date.getTime() - offset * 60_000);
}

/** An ISO 8601 offset in minutes east of UTC (none, or Z: 0); null for one no zone has (past ±14:00). */
function offsetMinutes(text: string | undefined): number | null {
  if (!text || text === 'Z') return 0;
  const minutes = Number(text.slice(1, 3)) * 60 + Number(text.slice(4, 6));
  if (Number(text.slice(4, 6)) > 59 || minutes > 14 * 60) return null;
  return text.startsWith('-') ? -minutes : minutes;
}

export function toInput(date: Date): string {
  return date.toISOString().slice(0, 16);
}

/** A parameter given once; one given twice is not a value (''), so it is refused rather than one of them picked. */
function single(params: SearchParams, name: string): string | undefined {
  const value = params[name];
  return Array.isArray(value) ? '' : value;
}

function preset(id: PresetRange, now: Date, problem?: string): TimeRange {
  const ms = PRESET_RANGES.find((r) => r.id === id)!.ms;
  // Whole minutes: the API's buckets, and the same range for every refresh within a minute.
  const to = new Date(Math.ceil(now.getTime() / 60_000) * 60_000);
  const from = new Date(to.getTime() - ms);
  return { id, from, to, live: true, fromInput: toInput(from), toInput: toInput(to), ...(problem ? { problem } : {}) };
}

/** Whether the URL names a range (a preset, or a custom one, even one refused): then it is the one shown. */
export function namesRange(params: SearchParams): boolean {
  return params.range !== undefined || params.from !== undefined || params.to !== undefined;
}

/** The range `rangeForTraffic` reads to choose: by the minute, so that how old the traffic is reads to the minute. */
export function trafficProbe(now: Date = new Date()): TimeRange {
  return preset('6h', now);
}

/**
 * The preset a page opens on when its URL names no range, from the series of `trafficProbe` (the last 6 hours by the
 * minute): the shortest that holds all of that traffic, so that a fresh install's first minutes are 60 bars of an
 * hour, not one bar at the edge of a day. Traffic in the probe's first minute may have begun before it: the default
 * (24 h), as for none at all.
 */
export function rangeForTraffic(probe: Pick<UsageSeries, 'points'>, now: Date = new Date()): PresetRange {
  const first = probe.points.findIndex((p) => decisionsOf(p) > 0);
  if (first <= 0) return DEFAULT_RANGE;
  const since = new Date(probe.points[first]!.at);
  return since >= preset('1h', now).from ? '1h' : '6h';
}

export function parseRange(params: SearchParams, now: Date = new Date(), fallback: PresetRange = DEFAULT_RANGE): TimeRange {
  const fromText = single(params, 'from');
  const toText = single(params, 'to');
  if (fromText !== undefined || toText !== undefined) {
    const from = fromText === undefined ? null : parseInput(fromText);
    const to = toText === undefined || toText === '' ? now : parseInput(toText);
    if (!from) return preset(DEFAULT_RANGE, now, 'The start of the range is not a time: use the picker (YYYY-MM-DD hh:mm, UTC).');
    if (!to) return preset(DEFAULT_RANGE, now, 'The end of the range is not a time: use the picker (YYYY-MM-DD hh:mm, UTC).');
    if (from >= to) return preset(DEFAULT_RANGE, now, 'The start of the range must be before its end.');
    if (to.getTime() - from.getTime() > MAX_CUSTOM_MS) return preset(DEFAULT_RANGE, now, 'A range can be at most 400 days long.');
    return { id: 'custom', from, to, live: false, fromInput: toInput(from), toInput: toInput(to) };
  }
  const asked = single(params, 'range');
  if (asked === undefined) return preset(fallback, now);
  const known = PRESET_RANGES.find((r) => r.id === asked);
  return known ? preset(known.id, now) : preset(DEFAULT_RANGE, now, 'That range is not one of 1 h, 6 h, 24 h, 7 d and 30 d.');
}

/** The range of the same length just before this one: what the totals are compared with. */
export function previousRange(range: Pick<TimeRange, 'from' | 'to'>): { from: Date; to: Date } {
  const ms = range.to.getTime() - range.from.getTime();
  return { from: new Date(range.from.getTime() - ms), to: range.from };
}

/** The URL query of a range, as links and the refresh keep it. */
export function rangeQuery(range: Pick<TimeRange, 'id' | 'fromInput' | 'toInput'>): URLSearchParams {
  return range.id === 'custom' ? new URLSearchParams({ from: range.fromInput, to: range.toInput }) : new URLSearchParams({ range: range.id });
}

export interface UsageTotals {
  decisions: number;
  /** Admitted: allowed, and the shadow would-denies (which were admitted too). */
  allowed: number;
  denied: number;
  /** denied / decisions, or null without decisions. */
  denyRate: number | null;
  shadowDenied: number;
  degraded: number;
  /** Checks refused without a decision (a bad key, a suspended tenant, a tenant the service may not check): not in `decisions`. */
  refused: number;
}

/** The totals of a series: its points summed as the API gave them. */
export function totalsOf(series: Pick<UsageSeries, 'points'>): UsageTotals {
  let decisions = 0;
  let allowed = 0;
  let denied = 0;
  let shadowDenied = 0;
  let degraded = 0;
  let refused = 0;
  for (const p of series.points) {
    decisions += decisionsOf(p);
    allowed += p.allowed + p.shadowDenied;
    denied += p.denied;
    shadowDenied += p.shadowDenied;
    degraded += p.degraded;
    refused += p.refused;
  }
  return { decisions, allowed, denied, denyRate: decisions === 0 ? null : denied / decisions, shadowDenied, degraded, refused };
}

/** A count's change against the previous range, as people say it: "+12 %", "−3 %", "new", "no change". */
export function formatChange(now: number, before: number): string {
  if (now === before) return 'no change';
  if (before === 0) return 'new';
  const percent = ((now - before) / before) * 100;
  const rounded = Math.abs(percent) < 10 ? Math.round(percent * 10) / 10 : Math.round(percent);
  if (rounded === 0) return percent > 0 ? '+< 0.1 %' : '−< 0.1 %';
  return `${rounded > 0 ? '+' : '−'}${Math.abs(rounded).toLocaleString('en-US')} %`;
}

/** A rate's change in percentage points: "+4.2 pp", "−0.5 pp", "no change"; "new" without decisions before. */
export function formatRateChange(now: number | null, before: number | null): string {
  if (now === null) return '—';
  if (before === null) return 'new';
  const points = Math.round((now - before) * 1000) / 10;
  if (points === 0) return 'no change';
  return `${points > 0 ? '+' : '−'}${Math.abs(points)} pp`;
}

/** The minimum volume (decisions) the top lists rank by 429 rate from, as the URL's `min` keeps it. */
export const MIN_VOLUMES = [1, 10, 100, 1000] as const;
export const DEFAULT_MIN_VOLUME = 10;

export function parseMinVolume(params: SearchParams): number {
  const asked = Number(single(params, 'min'));
  return (MIN_VOLUMES as readonly number[]).includes(asked) ? asked : DEFAULT_MIN_VOLUME;
}

/** The check the empty overview suggests sending (the demo's tenant and endpoint). */
export const DEMO_CHECK = { tenant: 'acme', endpoint: 'GET /v1/items', subject: 'user-42' } as const;

/** The rule set versions of a range as markers on the chart's time axis. */
export function ruleSetMarkers(versions: readonly { version: number; createdAt: string; author: string }[]): ChartMarker[] {
  return versions.map((v) => ({ at: v.createdAt, label: `v${v.version}`, description: `Rule set v${v.version} published by ${v.author}` }));
}
