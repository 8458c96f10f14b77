import { regionShare, type ResolvedRule } from '../rules';
import { calendarWindowAt, CalendarWindows, type TimeWindow } from './calendar';
import { type AlgorithmModel, modelFrom, type ViewArithmetic } from './model';

/** A counter for the window [start, end) that holds `now`. */
export interface FixedWindowView {
  now: number;
  start: number;
  end: number;
  count: number;
}

/** Epoch-aligned windows of `windowMs`, or calendar days/months in a time zone. */
export function windowAt(rule: ResolvedRule, now: number): TimeWindow {
  if (rule.calendar) return calendarWindowAt(rule.calendar, now);
  const start = now - (now % rule.windowMs);
  return { start, end: start + rule.windowMs };
}

/**
 * At most `limit` units per window; the count starts from zero when a window begins. One quota across regions: the
 * region's share of it (what the Redis engine admits in a window the coordinator gave the region no allowance).
 */
export function fixedWindow(rule: ResolvedRule): AlgorithmModel<FixedWindowView> {
  const bound = rule.regions ? regionShare(rule.limit, rule.regions) : rule.limit;
  const arithmetic: ViewArithmetic<FixedWindowView> = {
    available: (v) => Math.max(0, bound - v.count),
    take: (v, cost) => ({ ...v, count: v.count + cost }),
    give: (v, cost) => ({ ...v, count: Math.max(0, v.count - cost) }),
    retryAfterMs: (v) => v.end - v.now,
    resetMs: (v) => v.end - v.now,
  };
  const calendar = rule.calendar && new CalendarWindows(rule.calendar);
  return modelFrom(
    (stored, now) => {
      const { start, end } = calendar ? calendar.from(now) : windowAt(rule, now);
      return { now, start, end, count: stored?.start === start ? stored.count : 0 };
    },
    arithmetic,
    // The window's count, until the window ends (an empty count is not kept: it reads as empty anyway).
    (view) => ({ value: view, ttlMs: view.count > 0 ? view.end - view.now : 0 }),
  );
}
