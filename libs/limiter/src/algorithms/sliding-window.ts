import type { ResolvedRule } from '../rules';
import { floorDiv } from './integers';
import { type AlgorithmModel, modelFrom, type ViewArithmetic } from './model';

/** Counts of the previous and the current epoch-aligned window (`index` = floor(now / W)). */
export interface SlidingWindowView {
  now: number;
  index: number;
  previous: number;
  current: number;
}

/**
 * Sliding window counter: estimate = previous × (W − elapsed) / W + current, admitted iff
 * estimate + cost ≤ limit. Compared multiplied by W, so every step is an integer.
 */
export function slidingWindow(rule: ResolvedRule): AlgorithmModel<SlidingWindowView> {
  const { limit, windowMs: w } = rule;
  const elapsed = (v: SlidingWindowView) => v.now - v.index * w;
  const resetMs = (v: SlidingWindowView) => {
    if (v.current > 0) return 2 * w - elapsed(v);
    return v.previous > 0 ? w - elapsed(v) : 0;
  };
  const openAt = (stored: SlidingWindowView | undefined, now: number): SlidingWindowView => {
    const index = floorDiv(now, w);
    if (stored?.index === index) return { now, index, previous: stored.previous, current: stored.current };
    return { now, index, previous: stored?.index === index - 1 ? stored.current : 0, current: 0 };
  };
  const arithmetic: ViewArithmetic<SlidingWindowView> = {
    available(v) {
      const room = limit * w - v.previous * (w - elapsed(v));
      return room < 0 ? 0 : Math.max(0, floorDiv(room, w) - v.current);
    },
    take: (v, cost) => ({ ...v, current: v.current + cost }),
    give: (v, cost) => ({ ...v, current: Math.max(0, v.current - cost) }),
    retryAfterMs(v, cost) {
      // Later in this window: the smallest elapsed e with previous × (W − e) ≤ (limit − current − cost) × W.
      const room = limit - v.current - cost;
      if (room >= 0 && v.previous > 0) {
        const e = w - floorDiv(room * w, v.previous);
        if (e < w) return e - elapsed(v);
      }
      // Otherwise in the next window, where the current count becomes the previous one.
      const next = v.current > 0 ? Math.max(0, w - floorDiv((limit - cost) * w, v.current)) : 0;
      return w - elapsed(v) + next;
    },
    resetMs,
  };
  return modelFrom(openAt, arithmetic);
}
