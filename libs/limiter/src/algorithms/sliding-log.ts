import type { ResolvedRule } from '../rules';
import { type AlgorithmModel, modelFrom, type ViewArithmetic } from './model';

/** The admission times (one per unit, ascending) still inside the window (now − W, now]. */
export interface SlidingLogView {
  now: number;
  times: readonly number[];
}

/** At most `limit` units in any `windowMs`-long interval: every admitted unit is logged with its time. */
export function slidingLog(rule: ResolvedRule): AlgorithmModel<SlidingLogView> {
  const { limit, windowMs } = rule;
  const newest = (v: SlidingLogView) => v.times[v.times.length - 1];
  const resetMs = (v: SlidingLogView) => {
    const last = newest(v);
    return last === undefined ? 0 : last + windowMs - v.now;
  };
  const arithmetic: ViewArithmetic<SlidingLogView> = {
    available: (v) => Math.max(0, limit - v.times.length),
    take(v, cost) {
      const at = v.times.findIndex((t) => t > v.now);
      const times = at === -1 ? v.times.length : at;
      return { ...v, times: [...v.times.slice(0, times), ...new Array<number>(cost).fill(v.now), ...v.times.slice(times)] };
    },
    give: (v, cost) => ({ ...v, times: v.times.slice(0, Math.max(0, v.times.length - cost)) }),
    retryAfterMs(v, cost) {
      // The oldest units must leave the window until this cost fits; the last of them decides.
      const leaving = v.times[v.times.length + cost - limit - 1] ?? v.now;
      return leaving + windowMs - v.now;
    },
    resetMs,
  };
  return modelFrom((stored, now) => ({ now, times: (stored?.times ?? []).filter((t) => t > now - windowMs) }), arithmetic);
}
