import type { LimitsUsed, PlansAtLimit, UsageSummary } from './api-answers';
import { formatCount } from './format';
import { formatRate } from './usage-chart';

// What the list pages say about traffic: each row's decisions, 429 rate and would-denies over a recent window, the
// most used limit of a tenant now, how many tenants of a plan are at a limit now. Pure, so pages and tests share it.

/** The window the lists count decisions over, as their headings say it. */
export const LIST_WINDOW = { label: '24 h', ms: 86_400_000 } as const;

/** The window up to now, in whole minutes (the API's buckets; the same window for every read within a minute). */
export function listWindow(now: Date = new Date()): { from: Date; to: Date } {
  const to = new Date(Math.ceil(now.getTime() / 60_000) * 60_000);
  return { from: new Date(to.getTime() - LIST_WINDOW.ms), to };
}

export type UsageOfRow = UsageSummary['items'][number];
export type LimitUseOfRow = LimitsUsed['items'][number];
export type PlanAtLimit = PlansAtLimit['items'][number];

/** What a page read of its rows' traffic: null where a read failed (the list is shown without it). */
export interface RowTraffic<T> {
  /** By id: each row's entry. */
  rows: ReadonlyMap<string, T>;
  /** False when the limiter did not answer (no state now is known). */
  live: boolean;
}

export function byId<T>(items: readonly T[], id: (item: T) => string): ReadonlyMap<string, T> {
  return new Map(items.map((item) => [id(item), item]));
}

/** A row's 429s as a cell says them: the rate, and how many ("12.5 %", "5 of 40"); "—" without decisions. */
export function denyRateText(usage: Pick<UsageOfRow, 'decisions' | 'denied' | 'denyRate'>): { rate: string; count: string } {
  if (usage.decisions === 0) return { rate: '—', count: '' };
  return { rate: formatRate(usage.denyRate), count: `${formatCount(usage.denied)} of ${formatCount(usage.decisions)}` };
}

/** How much of a tenant's most used limit is used now, in whole percent ("80 %"), and which limit. */
export function limitUseText(entry: LimitUseOfRow | undefined, live: boolean): string {
  if (!live) return 'unavailable: the limiter did not answer';
  if (!entry || entry.mostUsed === null) return 'no limits of its own';
  return `${Math.round(entry.mostUsed.share * 100)} % of ${entry.mostUsed.name}`;
}

/** How many of a plan's tenants are at a limit now: "1 at a limit now", "none at a limit now", "… of the first 1,000". */
export function atLimitText(entry: PlanAtLimit | undefined, live: boolean): string {
  if (!live) return 'limit state unavailable';
  if (!entry || entry.tenants === 0) return 'none at a limit';
  const count = entry.atLimit === 0 ? 'none' : formatCount(entry.atLimit);
  const of = entry.checked < entry.tenants ? ` of the first ${formatCount(entry.checked)}` : '';
  return `${count}${of} at a limit now`;
}
