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
): Record<string, string> {
  const headers: Record<string, string> = {};
  const tightest = mostRestrictive(limits);
  if (tightest) {
    headers['X-RateLimit-Limit'] = String(tightest.limit);
    headers['X-RateLimit-Remaining'] = String(tightest.remaining);
    headers['X-RateLimit-Reset'] = String(Math.ceil((decision.nowMs + tightest.resetMs) / 1000));
    headers['RateLimit-Policy'] = serializeList(
      limits.map((l) => [l.name, new Map<string, number>([['q', l.limit], ['w', l.windowS]])]),
    );
    headers['RateLimit'] = serializeList(
      limits.map((l) => [l.name, new Map<string, number>([['r', l.remaining], ['t', secondsUp(l.resetMs)]])]),
    );
  }
  if (!decision.allowed) headers['Retry-After'] = String(Math.max(1, secondsUp(decision.retryAfterMs)));
  return headers;
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
