import { serializeList } from 'structured-headers';
import type { LimitState } from './limits';

/**
 * The headers a service copies onto its own response, for every decision, allowed or not:
 * - `Retry-After`: whole seconds, rounded up (only when denied),
 * - `X-RateLimit-Limit` / `-Remaining` / `-Reset` (epoch seconds) for the most restrictive limit,
 * - IETF draft `RateLimit-Policy` and `RateLimit`: one named item per limit (structured fields lists).
 */
export function rateLimitHeaders(
  limits: readonly LimitState[],
  decision: { allowed: boolean; retryAfterMs: number; nowMs: number },
  /** `rateLimitPolicy(limits)` when the caller keeps it (it changes only with the limits). */
  policy?: string,
): Record<string, string> {
  const headers: Record<string, string> = {};
  const tightest = mostRestrictive(limits);
  if (tightest) {
    headers['X-RateLimit-Limit'] = String(tightest.limit);
    headers['X-RateLimit-Remaining'] = String(tightest.remaining);
    headers['X-RateLimit-Reset'] = String(Math.ceil((decision.nowMs + tightest.resetMs) / 1000));
    headers['RateLimit-Policy'] = policy ?? rateLimitPolicy(limits);
    headers['RateLimit'] = namedList(limits.map((l) => [l.name, 'r', l.remaining, 't', secondsUp(l.resetMs)]));
  }
  if (!decision.allowed) headers['Retry-After'] = String(Math.max(1, secondsUp(decision.retryAfterMs)));
  return headers;
}

/** The `RateLimit-Policy` value of these limits: one named item per limit, with its quota and window. */
export function rateLimitPolicy(limits: readonly Pick<LimitState, 'name' | 'limit' | 'windowS'>[]): string {
  return namedList(limits.map((l) => [l.name, 'q', l.limit, 'w', l.windowS]));
}

/** One list item: a string and two integer parameters (`"minute";q=10;w=60`). */
type NamedItem = [name: string, key1: string, value1: number, key2: string, value2: number];

/** Printable ASCII but `"` and `\`: a string whose Structured Fields form is itself in quotes. */
const PLAIN_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const MAX_SF_INTEGER = 999_999_999_999_999;

/**
 * A Structured Fields list of string items with integer parameters. This runs on every check, so the common case
 * (names without quotes or backslashes, integers in range) is written directly, which is what the structured-headers
 * library writes for it (a unit test compares the two); anything else goes through the library.
 */
export function namedList(items: readonly NamedItem[]): string {
  let out = '';
  for (const [name, k1, v1, k2, v2] of items) {
    if (!PLAIN_STRING.test(name) || !sfInteger(v1) || !sfInteger(v2)) {
      return serializeList(items.map(([n, a, x, b, y]) => [n, new Map<string, number>([[a, x], [b, y]])]));
    }
    out += `${out ? ', ' : ''}"${name}";${k1}=${v1};${k2}=${v2}`;
  }
  return out;
}

function sfInteger(n: number): boolean {
  return Number.isInteger(n) && Math.abs(n) <= MAX_SF_INTEGER;
}

/** Seconds rounded up: 20.5 s is 21, never 20 (a client that retries at 20 s would be denied again). */
export function secondsUp(ms: number): number {
  return Math.ceil(ms / 1000);
}

/** The limit closest to denying: the fewest remaining units, and of those the one that resets last. */
export function mostRestrictive(limits: readonly LimitState[]): LimitState | undefined {
  let best: LimitState | undefined;
  for (const l of limits) {
    if (!best || l.remaining < best.remaining || (l.remaining === best.remaining && l.resetMs > best.resetMs)) best = l;
  }
  return best;
}
