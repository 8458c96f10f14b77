const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;

/**
 * How long after each failed attempt the next one is made: the first attempt at once, then after 5 s, 5 min, 30 min,
 * 2 h, 5 h, 10 h and 10 h (8 attempts over about 27.6 hours), each delay ±20 % at random so that the deliveries of
 * one outage do not all come back in the same second.
 */
export const RETRY_DELAYS_MS: readonly number[] = [5 * S, 5 * MIN, 30 * MIN, 2 * H, 5 * H, 10 * H, 10 * H];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
export const JITTER = 0.2;
/** The longest `Retry-After` followed; a longer one is cut to this. */
export const MAX_RETRY_AFTER_MS = 24 * H;
/** An endpoint whose attempts have all failed for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * H;

/**
 * The delay before the attempt after `attempt` (1-based) failed, or null when it was the last. `retryAfterMs` (a 429's
 * or 503's `Retry-After`) is a "not before": the delay is the larger of it and the schedule's.
 */
export function nextDelayMs(attempt: number, retryAfterMs: number | null, random: () => number = Math.random): number | null {
  const base = RETRY_DELAYS_MS[attempt - 1];
  if (base === undefined) return null;
  const jittered = Math.round(base * (1 - JITTER + 2 * JITTER * random()));
  return retryAfterMs === null ? jittered : Math.max(jittered, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}

/** A `Retry-After` value, delay-seconds or an HTTP date, in ms from `now` (0 for a past date); null when unreadable. */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * S;
  // An HTTP date (IMF-fixdate, or the obsolete forms Date.parse reads); anything else is ignored.
  if (!/^[A-Za-z]{3},? /.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}
