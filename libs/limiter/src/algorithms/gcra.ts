import type { ResolvedRule } from '../rules';
import { ceilDiv, floorDiv } from './integers';
import { type AlgorithmModel, modelFrom, type ViewArithmetic } from './model';

/**
 * The theoretical arrival time, exact: TAT = ms + remainder / rate (0 ≤ remainder < rate). With the
 * emission interval T = partsPerUnit / rate ms (= windowMs / limit, see ResolvedRule), one unit is `partsPerUnit` ticks of
 * 1/rate ms, so everything stays an integer.
 */
export interface GcraView {
  now: number;
  ms: number;
  remainder: number;
}

/**
 * GCRA: newTat = max(tat, now) + cost × T, admitted iff newTat − now ≤ capacity × T. Works on
 * d = (max(tat, now) − now) × rate, the bucket's level in ticks.
 */
export function gcra(rule: ResolvedRule): AlgorithmModel<GcraView> {
  const { rate, partsPerUnit: w } = rule;
  const full = rule.capacity * w;
  const level = (v: GcraView) => (v.ms < v.now ? 0 : (v.ms - v.now) * rate + v.remainder);
  const at = (now: number, ticks: number): GcraView => {
    const ms = floorDiv(ticks, rate);
    return { now, ms: now + ms, remainder: ticks - ms * rate };
  };
  const resetMs = (v: GcraView) => ceilDiv(level(v), rate);
  const arithmetic: ViewArithmetic<GcraView> = {
    available: (v) => Math.max(0, floorDiv(full - level(v), w)),
    take: (v, cost) => at(v.now, level(v) + cost * w),
    give: (v, cost) => at(v.now, Math.max(0, level(v) - cost * w)),
    retryAfterMs: (v, cost) => ceilDiv(level(v) + cost * w - full, rate),
    resetMs,
  };
  return modelFrom((stored, now) => at(now, stored ? level({ ...stored, now }) : 0), arithmetic);
}
