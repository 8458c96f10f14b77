import { preparingEachCall } from '../prepared-rules';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { ManualClock } from '../clock';
import { ruleArbitrary } from '../contract-suite/arbitraries';
import { T0 } from '../contract-suite/context';
import type { LimitRule } from '../contract';
import { MemoryEngine } from './memory-engine';

/** Units admitted at one instant. */
interface Admission {
  at: number;
  units: number;
}

const sum = (list: readonly Admission[]) => list.reduce((total, a) => total + a.units, 0);

/** Throws when the admissions break the rule's guarantee (libs/limiter/README.md). */
function checkGuarantee(rule: LimitRule, admitted: readonly Admission[]): void {
  const { limit: l, windowMs: w } = rule;
  const fail = (what: string) => {
    throw new Error(`${rule.algorithm}: ${what} in ${JSON.stringify(admitted)}`);
  };
  const byWindow = new Map<number, number>();
  for (const a of admitted) byWindow.set(Math.floor(a.at / w), (byWindow.get(Math.floor(a.at / w)) ?? 0) + a.units);
  switch (rule.algorithm) {
    case 'fixed_window':
    case 'sliding_window':
      for (const [index, units] of byWindow) if (units > l) fail(`${units} units in window ${index}`);
      for (const a of admitted) if (sum(admitted.filter((b) => b.at >= a.at && b.at < a.at + w)) > 2 * l) fail(`more than 2 x ${l} within ${w} ms of ${a.at}`);
      return;
    case 'sliding_log':
      for (const a of admitted) if (sum(admitted.filter((b) => b.at > a.at - w && b.at <= a.at)) > l) fail(`more than ${l} in (${a.at - w}, ${a.at}]`);
      return;
    default: {
      // Buckets and GCRA: never more than capacity + rate x t over any interval t.
      const capacity = rule.burst ?? l;
      admitted.forEach((first, i) => {
        let units = 0;
        for (const last of admitted.slice(i)) {
          units += last.units;
          if (units * w > capacity * w + l * (last.at - first.at)) fail(`${units} units in [${first.at}, ${last.at}]`);
        }
      });
    }
  }
}

describe('MemoryEngine: no window admits more than its limit', () => {
  it('holds for every algorithm over random costs, clock steps and leases', async () => {
    const scenario = ruleArbitrary('r')
      .filter((rule) => rule.calendar === undefined)
      .chain((rule) =>
        fc.record({
          rule: fc.constant(rule),
          steps: fc.array(
            fc.record({
              advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: Math.ceil(rule.windowMs / 3) }), fc.integer({ min: 0, max: 2 * rule.windowMs })),
              amount: fc.integer({ min: 1, max: rule.burst ?? rule.limit }),
              lease: fc.boolean(),
            }),
            { maxLength: 60 },
          ),
        }),
      );
    await fc.assert(
      fc.asyncProperty(scenario, async ({ rule, steps }) => {
        const clock = new ManualClock(T0);
        const engine = preparingEachCall(new MemoryEngine({ clock }));
        const admitted: Admission[] = [];
        const request = { tenantId: 't', rules: [rule] };
        for (const step of steps) {
          clock.advance(step.advanceMs);
          const units =
            step.lease && rule.algorithm !== 'leaky_bucket_shaper'
              ? (await engine.lease({ ...request, max: step.amount })).granted
              : (await engine.consume({ ...request, cost: step.amount })).allowed
                ? step.amount
                : 0;
          if (units > 0) admitted.push({ at: clock.now(), units });
        }
        checkGuarantee(rule, admitted);
      }),
      { numRuns: 500 },
    );
  });
});
