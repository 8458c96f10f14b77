import type { ResolvedRule } from '../rules';
import { ceilDiv, floorDiv } from './integers';
import { type AlgorithmModel, modelFrom, type ViewArithmetic } from './model';

/**
 * Tokens counted in parts (one token = `partsPerUnit` parts; the refill is `rate` parts per ms, see ResolvedRule), valid as of `at`
 * (= now, unless the clock went back).
 */
export interface TokenBucketView {
  now: number;
  at: number;
  tokens: number;
}

/** Capacity `burst ?? limit`, refilled lazily at `limit` tokens per `windowMs`; a cost takes that many tokens. */
export function tokenBucket(rule: ResolvedRule): AlgorithmModel<TokenBucketView> {
  const { rate, partsPerUnit: w } = rule;
  const full = rule.capacity * w;
  const resetMs = (v: TokenBucketView) => (v.tokens >= full ? 0 : v.at - v.now + ceilDiv(full - v.tokens, rate));
  const arithmetic: ViewArithmetic<TokenBucketView> = {
    available: (v) => floorDiv(v.tokens, w),
    take: (v, cost) => ({ ...v, tokens: v.tokens - cost * w }),
    give: (v, cost) => ({ ...v, tokens: Math.min(full, v.tokens + cost * w) }),
    retryAfterMs: (v, cost) => v.at - v.now + ceilDiv(cost * w - v.tokens, rate),
    resetMs,
  };
  const openAt = (stored: TokenBucketView | undefined, now: number): TokenBucketView => {
    if (!stored) return { now, at: now, tokens: full };
    const tokens = Math.min(stored.tokens, full);
    const elapsed = Math.max(0, now - stored.at);
    const refilled = elapsed >= ceilDiv(full - tokens, rate) ? full : tokens + elapsed * rate;
    return { now, at: Math.max(stored.at, now), tokens: refilled };
  };
  return modelFrom(openAt, arithmetic);
}
