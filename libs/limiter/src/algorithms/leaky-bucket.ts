import type { ResolvedRule } from '../rules';
import { ceilDiv, floorDiv } from './integers';
import { type AlgorithmModel, modelFrom, type ViewArithmetic } from './model';

/** The level in parts (one request unit = `partsPerUnit` parts; the leak is `rate` parts per ms, see ResolvedRule), as of `at`. */
export interface LeakyBucketView {
  now: number;
  at: number;
  level: number;
}

/**
 * Leaky bucket: the level rises by the cost and leaks `limit` units per `windowMs`; admitted iff
 * level + cost ≤ capacity. As a meter it only admits or denies; as a shaper (a queue) an admitted request
 * also learns how long to wait: until its last unit has leaked, paced at windowMs / limit ms per unit.
 */
export function leakyBucket(rule: ResolvedRule, shaper: boolean): AlgorithmModel<LeakyBucketView> {
  const { rate, partsPerUnit: w } = rule;
  const full = rule.capacity * w;
  const resetMs = (v: LeakyBucketView) => (v.level > 0 ? v.at - v.now + ceilDiv(v.level, rate) : 0);
  const arithmetic: ViewArithmetic<LeakyBucketView> = {
    available: (v) => Math.max(0, floorDiv(full - v.level, w)),
    take: (v, cost) => ({ ...v, level: v.level + cost * w }),
    give: (v, cost) => ({ ...v, level: Math.max(0, v.level - cost * w) }),
    retryAfterMs: (v, cost) => v.at - v.now + ceilDiv(v.level + cost * w - full, rate),
    resetMs,
    ...(shaper ? { delayMs: resetMs } : {}),
  };
  const openAt = (stored: LeakyBucketView | undefined, now: number): LeakyBucketView => {
    if (!stored) return { now, at: now, level: 0 };
    const elapsed = Math.max(0, now - stored.at);
    const level = elapsed >= ceilDiv(stored.level, rate) ? 0 : stored.level - elapsed * rate;
    return { now, at: Math.max(stored.at, now), level };
  };
  return modelFrom(openAt, arithmetic);
}
