import type { DenialSamples, LiveLimit } from '@tollgate/domain';
import { PRESET_RANGES, type TimeRange } from './overview';
import { safeZone } from './usage-chart';

/**
 * What a tenant's usage views work out from the API's answers, pure so that the pages and their tests share it: times
 * in the tenant's own zone and the fill of a limit's bar (the range and a series' totals are lib/overview.ts's).
 */

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

export type DenialSample = DenialSamples['items'][number];

/** A range as a heading says it: "last 24 h", or a custom one's bounds in UTC. */
export function rangeLabel(range: Pick<TimeRange, 'id' | 'fromInput' | 'toInput'>): string {
  const preset = PRESET_RANGES.find((r) => r.id === range.id);
  return preset ? `last ${preset.label}` : `${range.fromInput.replace('T', ' ')} – ${range.toInput.replace('T', ' ')} UTC`;
}
