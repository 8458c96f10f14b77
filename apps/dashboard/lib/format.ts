const UNITS = [
  { seconds: 604_800, one: 'week', many: 'weeks' },
  { seconds: 86_400, one: 'day', many: 'days' },
  { seconds: 3_600, one: 'hour', many: 'hours' },
  { seconds: 60, one: 'minute', many: 'minutes' },
  { seconds: 1, one: 'second', many: 'seconds' },
] as const;

/** A window length as people say it: 60 → "per minute", 86400 → "per day", 7200 → "per 2 hours". */
export function formatWindow(windowS: number): string {
  if (!Number.isInteger(windowS) || windowS <= 0) return `per ${windowS} s`;
  const unit = UNITS.find((u) => windowS % u.seconds === 0) ?? UNITS[UNITS.length - 1]!;
  const count = windowS / unit.seconds;
  return count === 1 ? `per ${unit.one}` : `per ${count.toLocaleString('en-US')} ${unit.many}`;
}

/** `fixed_window` → "Fixed window". */
export function formatAlgorithm(algorithm: string): string {
  const words = algorithm.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}

export function formatTimestamp(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

/** Only same-site paths are valid places to return to after signing in. */
export function safeReturnPath(value: unknown): string | undefined {
  return typeof value === 'string' && value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\')
    ? value
    : undefined;
}
