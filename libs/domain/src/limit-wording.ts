/**
 * Limits as people say them ("1,000 per day", "Token bucket"): the dashboard shows them, and the rule set history's
 * sentences ("starter: minute 10 → 20") are written with them on the API.
 */

const UNITS = [
  { seconds: 604_800, one: 'week', many: 'weeks' },
  { seconds: 86_400, one: 'day', many: 'days' },
  { seconds: 3_600, one: 'hour', many: 'hours' },
  { seconds: 60, one: 'minute', many: 'minutes' },
  { seconds: 1, one: 'second', many: 'seconds' },
] as const;

export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}

/** A window length as people say it: 60 → "per minute", 86400 → "per day", 7200 → "per 2 hours". */
export function formatWindow(windowS: number): string {
  if (!Number.isInteger(windowS) || windowS <= 0) return `per ${windowS} s`;
  const unit = UNITS.find((u) => windowS % u.seconds === 0) ?? UNITS[UNITS.length - 1]!;
  const count = windowS / unit.seconds;
  return count === 1 ? `per ${unit.one}` : `per ${count.toLocaleString('en-US')} ${unit.many}`;
}

/** A limit's period: "per day", or "per calendar day" when it follows the tenant's calendar. */
export function formatPeriod({ windowS, calendar }: { windowS: number; calendar?: string | null }): string {
  return calendar ? `per calendar ${calendar}` : formatWindow(windowS);
}

/** A limit as people say it: "1,000 per day", or "1,000 per calendar day" when it follows the tenant's calendar. */
export function formatRate(limit: { limit: number; windowS: number; calendar?: string | null }): string {
  return `${formatCount(limit.limit)} ${formatPeriod(limit)}`;
}

/** `fixed_window` → "Fixed window"; an acronym stays one (`gcra` → "GCRA"). */
export function formatAlgorithm(algorithm: string): string {
  if (algorithm === 'gcra') return 'GCRA';
  const words = algorithm.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
