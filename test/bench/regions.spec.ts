import { describe, expect, it } from 'vitest';
import { CUT, DEFAULTS, scenarios, simulate, type Strategy } from '../../bench/regions.mjs';

// The invariants of the simulation behind docs/adr/0025-one-quota-across-regions.md: what its figures may be trusted
// for. A strategy that never over-admits by construction must not in any scenario, and the available variants stay
// within the bounds the ADR gives them.

const SAFE: Strategy[] = ['static', 'rebalance', 'lease'];
const ALL: Strategy[] = [...SAFE, 'rebalance, reclaim', 'lease, reclaim'];
const all = scenarios();

describe('the regions simulation', () => {
  it('draws the same traffic and decisions for the same seed, other ones for another', () => {
    const run = (seed: number) => simulate({ n: 3, traffic: 'shifting', strategy: 'rebalance', cut: CUT, seed });
    expect(run(7)).toEqual(run(7));
    expect(run(8).windows.map((w) => w.offered)).not.toEqual(run(7).windows.map((w) => w.offered));
  });

  it('never over-admits without a cut, whatever the strategy, the traffic or the number of regions', () => {
    for (const { demand, n, traffic } of all.filter((s) => s.cut === null)) {
      for (const strategy of ALL) expect(simulate({ n, traffic, strategy, options: { demand } }).overTotal, `${strategy}, ${n} ${traffic} ${demand}`).toBe(0);
    }
  });

  it('never over-admits with a region cut off, for the static split, safe rebalancing and safe leases', () => {
    for (const { demand, n, traffic, cut } of all.filter((s) => s.cut !== null)) {
      for (const strategy of SAFE) expect(simulate({ n, traffic, strategy, cut, options: { demand } }).overTotal, `${strategy}, ${n} ${traffic} ${demand}`).toBe(0);
    }
  });

  it('over-admits by at most the lease outstanding when the pool reclaims a cut-off region’s lease', () => {
    let seen = 0;
    for (const leaseSize of [10, 50, 200]) {
      for (const { demand, n, traffic, cut } of all.filter((s) => s.cut !== null)) {
        const run = simulate({ n, traffic, strategy: 'lease, reclaim', cut, options: { demand, leaseSize } });
        expect(run.overTotal, `lease ${leaseSize}, ${n} ${traffic} ${demand}`).toBeLessThanOrEqual(leaseSize);
        seen = Math.max(seen, run.overTotal);
      }
    }
    expect(seen).toBeGreaterThan(0); // the bound is reached for real, not vacuously
  });

  it('over-admits when rebalancing hands a cut-off region’s allowance to the others, only while the cut lasts', () => {
    const run = simulate({ n: 2, traffic: 'skewed', strategy: 'rebalance, reclaim', cut: CUT });
    expect(run.overTotal).toBeGreaterThan(0);
    const [from, to] = CUT.map((t) => Math.floor(t / DEFAULTS.windowTicks));
    run.windows.forEach((w, i) => {
      if (i < from! || i > to!) expect(w.over, `window ${i}`).toBe(0);
      // The cut-off region spends at most its allowance, which is never more than the limit.
      expect(w.over).toBeLessThanOrEqual(DEFAULTS.limit);
    });
  });

  it('admits at most what is offered, and counts as unused only quota a global counter would have admitted', () => {
    for (const strategy of ALL) {
      for (const w of simulate({ n: 3, traffic: 'skewed', strategy, cut: CUT }).windows) {
        expect(w.admitted).toBeLessThanOrEqual(w.offered);
        expect(w.over).toBe(Math.max(0, w.admitted - DEFAULTS.limit));
        expect(w.admitted - w.over + w.unused).toBeLessThanOrEqual(Math.min(w.offered, DEFAULTS.limit));
      }
    }
  });
});
