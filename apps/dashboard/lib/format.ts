// Limits as people say them: shared with the API, which writes the rule set history's sentences with them.
export { formatAlgorithm, formatCount, formatPeriod, formatRate, formatWindow } from '@tollgate/domain';

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

const RELATIVE_STEPS = [
  { unit: 'year', seconds: 31_536_000 },
  { unit: 'month', seconds: 2_592_000 },
  { unit: 'week', seconds: 604_800 },
  { unit: 'day', seconds: 86_400 },
  { unit: 'hour', seconds: 3_600 },
  { unit: 'minute', seconds: 60 },
] as const;
const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** How long ago a moment was, as people say it: "just now", "5 minutes ago", "yesterday", "3 weeks ago". */
export function formatRelativeTime(iso: string, now: number = Date.now()): string {
  const time = new Date(iso).getTime();
  if (Number.isNaN(time)) return iso;
  const seconds = Math.round((time - now) / 1000);
  if (Math.abs(seconds) < 45) return 'just now';
  const step = RELATIVE_STEPS.find((s) => Math.abs(seconds) >= s.seconds) ?? RELATIVE_STEPS[RELATIVE_STEPS.length - 1]!;
  return relative.format(Math.round(seconds / step.seconds), step.unit);
}

const INLINE_JSON_MAX = 60;

/** A rule set value as JSON: short values on one line, objects and arrays that would not fit indented. */
export function formatJsonValue(value: unknown): string {
  if (value === undefined) return '—';
  const inline = JSON.stringify(value) ?? String(value);
  if (inline.length <= INLINE_JSON_MAX || typeof value !== 'object' || value === null) return inline;
  return JSON.stringify(value, null, 2);
}

/** A wait as a person reads it, rounded up: "1 second", "42 seconds", "3 minutes", "2 hours 5 minutes". */
export function formatWait(seconds: number): string {
  const s = Math.max(1, Math.ceil(seconds));
  const unit = (n: number, name: string) => `${n} ${name}${n === 1 ? '' : 's'}`;
  if (s < 60) return unit(s, 'second');
  const minutes = Math.ceil(s / 60);
  if (minutes < 60) return unit(minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? unit(hours, 'hour') : `${unit(hours, 'hour')} ${unit(minutes % 60, 'minute')}`;
}
