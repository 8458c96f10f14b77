import fc from 'fast-check';
import { ALGORITHMS, type CalendarWindow, type LimitRule } from '../contract';
import { BUCKET_ALGORITHMS } from '../rules';
import { T0 } from './context';

/** One step of a generated scenario: move the clock, then run one operation. */
export interface Step {
  advanceMs: number;
  operation: 'consume' | 'peek' | 'refund' | 'lease';
  amount: number;
  subject: string | undefined;
}

export interface Scenario {
  startMs: number;
  rules: LimitRule[];
  /** Rules from this index on are a policy in shadow mode (consumes and peeks), or none. */
  shadowFrom: number | undefined;
  steps: Step[];
}

const calendar: fc.Arbitrary<CalendarWindow> = fc.record({
  unit: fc.constantFrom('day' as const, 'month' as const),
  timeZone: fc.constantFrom('UTC', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe'),
});

/** A valid rule with small numbers, so that windows fill, buckets empty and boundaries are crossed. */
export function ruleArbitrary(name: string): fc.Arbitrary<LimitRule> {
  return fc
    .record({
      algorithm: fc.constantFrom(...ALGORITHMS),
      limit: fc.oneof(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 500 })),
      windowMs: fc.oneof(fc.constantFrom(1, 7, 100, 333, 1000, 60_000, 86_400_000), fc.integer({ min: 1, max: 5000 })),
      burst: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
      calendar: fc.option(calendar, { nil: undefined, freq: 8 }),
    })
    .map(({ algorithm, limit, windowMs, burst, calendar: cal }) => ({
      name,
      algorithm,
      limit,
      windowMs,
      ...(burst !== undefined && BUCKET_ALGORITHMS.includes(algorithm) ? { burst } : {}),
      ...(cal && algorithm === 'fixed_window' ? { calendar: cal } : {}),
    }));
}

const capacity = (rule: LimitRule) => rule.burst ?? rule.limit;

/** Clock steps mostly within a window, sometimes across many (and, now and then, hours or days). */
function stepArbitrary(maxAmount: number, maxWindowMs: number): fc.Arbitrary<Step> {
  return fc.record({
    advanceMs: fc.oneof(
      { weight: 3, arbitrary: fc.constant(0) },
      { weight: 6, arbitrary: fc.integer({ min: 0, max: Math.max(1, Math.ceil(maxWindowMs / 4)) }) },
      { weight: 2, arbitrary: fc.integer({ min: 0, max: 2 * maxWindowMs }) },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 3 * 86_400_000 }) },
    ),
    operation: fc.constantFrom('consume', 'consume', 'consume', 'peek', 'refund', 'lease'),
    amount: fc.integer({ min: 1, max: maxAmount }),
    subject: fc.constantFrom(undefined, 'user:{1}'),
  });
}

/** 1-3 rules (mixed algorithms) and a sequence of operations; amounts may exceed a capacity (an error). */
export function scenarioArbitrary(maxSteps: number): fc.Arbitrary<Scenario> {
  return fc
    .integer({ min: 1, max: 3 })
    .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => ruleArbitrary(`r${i}`))))
    .chain((rules) => {
      const smallest = Math.min(...rules.map(capacity));
      const longest = Math.max(...rules.map((r) => (r.calendar ? 86_400_000 : r.windowMs)));
      return fc.record({
        startMs: fc.integer({ min: T0, max: T0 + 365 * 86_400_000 }),
        rules: fc.constant(rules),
        shadowFrom: fc.option(fc.integer({ min: 0, max: rules.length }), { nil: undefined }),
        steps: fc.array(stepArbitrary(smallest + 1, longest), { minLength: 1, maxLength: maxSteps }),
      });
    });
}
