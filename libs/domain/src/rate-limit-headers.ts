import { serializeList } from 'structured-headers';
import { type LimitState, secondsUp } from './check-contract';

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
    headers['X-RateLimit-Limit'] = decimal(tightest.limit);
    headers['X-RateLimit-Remaining'] = decimal(tightest.remaining);
    headers['X-RateLimit-Reset'] = decimal(Math.ceil((decision.nowMs + tightest.resetMs) / 1000));
    headers['RateLimit-Policy'] = policy ?? rateLimitPolicy(limits);
    headers['RateLimit'] = namedList(limits, RATE_LIMIT_ITEM);
  }
  if (!decision.allowed) headers['Retry-After'] = decimal(Math.max(1, secondsUp(decision.retryAfterMs)));
  return headers;
}

/** The `RateLimit-Policy` value of these limits: one named item per limit, with its quota and window. */
export function rateLimitPolicy(limits: readonly Pick<LimitState, 'name' | 'limit' | 'windowS'>[]): string {
  return namedList(limits, POLICY_ITEM);
}

/** How a value becomes one list item: a string and two integer parameters (`"minute";q=10;w=60`). */
export interface NamedItemOf<T> {
  name: (value: T) => string;
  key1: string;
  value1: (value: T) => number;
  key2: string;
  value2: (value: T) => number;
}

const POLICY_ITEM: NamedItemOf<Pick<LimitState, 'name' | 'limit' | 'windowS'>> = { name: (l) => l.name, key1: 'q', value1: (l) => l.limit, key2: 'w', value2: (l) => l.windowS };
const RATE_LIMIT_ITEM: NamedItemOf<LimitState> = { name: (l) => l.name, key1: 'r', value1: (l) => l.remaining, key2: 't', value2: (l) => secondsUp(l.resetMs) };

/** Printable ASCII but `"` and `\`: a string whose Structured Fields form is itself in quotes. */
const PLAIN_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const MAX_SF_INTEGER = 999_999_999_999_999;

/**
 * A Structured Fields list of string items with integer parameters, one item per value. This runs on every check,
 * so the common case (names without quotes or backslashes, integers in range) is written directly, which is what
 * the structured-headers library writes for it (a unit test compares the two); anything else goes through the
 * library.
 */
export function namedList<T>(values: readonly T[], item: NamedItemOf<T>): string {
  const { name: nameOf, key1, value1: valueOf1, key2, value2: valueOf2 } = item;
  let out = '';
  for (const value of values) {
    const name = nameOf(value);
    const v1 = valueOf1(value);
    const v2 = valueOf2(value);
    if (!PLAIN_STRING.test(name) || !sfInteger(v1) || !sfInteger(v2)) {
      return serializeList(values.map((v) => [nameOf(v), new Map<string, number>([[key1, valueOf1(v)], [key2, valueOf2(v)]])]));
    }
    out += `${out ? ', ' : ''}"${name}";${key1}=${decimal(v1)};${key2}=${decimal(v2)}`;
  }
  return out;
}

function sfInteger(n: number): boolean {
  return Number.isInteger(n) && Math.abs(n) <= MAX_SF_INTEGER;
}

/** The limit closest to denying: the fewest remaining units, and of those the one that resets last. */
export function mostRestrictive(limits: readonly LimitState[]): LimitState | undefined {
  let best: LimitState | undefined;
  for (const l of limits) {
    if (!best || l.remaining < best.remaining || (l.remaining === best.remaining && l.resetMs > best.resetMs)) best = l;
  }
  return best;
}

/**
 * An integer's decimal digits, as `String(n)` writes them, for the numbers of the rate-limit headers. Not `String(n)`
 * or a template literal: V8 keeps the strings those make in its number-string cache, a table in the old generation, so
 * each new number's string is held there until another number takes its slot, outlives young-generation collections
 * and is promoted. A header's numbers (remaining, reset) are new on almost every check: through the cache they were
 * most of what the API promoted under load, and the garbage collections that followed were a large part of its p99
 * (BENCHMARKS.md, session 6). `toFixed` makes a new string every time and caches nothing.
 */
export function decimal(n: number): string {
  return n.toFixed(0);
}
