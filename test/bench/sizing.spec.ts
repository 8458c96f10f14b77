import { describe, expect, it } from 'vitest';
import { linearFit, perCore, spread, unitsFor, xAtBudget } from '../../bench/sizing.mjs';

// The arithmetic behind BENCHMARKS.md "Capacity" and the sizing rule in README "Running at scale".

describe('the sizing arithmetic', () => {
  it('fits the line through points on a line exactly, and the least-squares line through others', () => {
    expect(linearFit([{ x: 0, y: 1 }, { x: 10, y: 21 }, { x: 5, y: 11 }])).toEqual({ slope: 2, intercept: 1 });
    const { slope, intercept } = linearFit([{ x: 0, y: 0 }, { x: 1, y: 2 }, { x: 2, y: 1 }]);
    expect(slope).toBeCloseTo(0.5);
    expect(intercept).toBeCloseTo(0.5);
  });

  it('refuses a line from one point or from one x', () => {
    expect(() => linearFit([{ x: 1, y: 1 }])).toThrow();
    expect(() => linearFit([{ x: 1, y: 1 }, { x: 1, y: 2 }])).toThrow();
  });

  it('extrapolates where a rollup minute takes the whole budget, and never when the cost does not grow', () => {
    // 1 s + 0.5 ms a tenant: 60 s at 118,000 tenants.
    const points = [2_000, 10_000, 30_000].map((x) => ({ x, y: 1 + x * 0.0005 }));
    expect(xAtBudget(points, 60)).toBeCloseTo(118_000);
    expect(xAtBudget([{ x: 1, y: 5 }, { x: 2, y: 4 }], 60)).toBe(Number.POSITIVE_INFINITY);
  });

  it('turns CPU µs a decision into decisions a second per core', () => {
    expect(perCore(80)).toBe(12_500);
    expect(perCore(0)).toBe(Number.POSITIVE_INFINITY);
  });

  it('sizes units with headroom, at least one', () => {
    expect(unitsFor(100_000, 12_500, 0.5)).toBe(16);
    expect(unitsFor(100_000, 12_500, 1)).toBe(8);
    expect(unitsFor(1, 12_500)).toBe(1);
    expect(() => unitsFor(1, 1, 0)).toThrow();
    expect(() => unitsFor(1, 1, 1.5)).toThrow();
  });

  it('spreads a sample evenly over the items, keeping their order', () => {
    expect(spread([1, 2, 3], 5)).toEqual([1, 2, 3]);
    expect(spread([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 5)).toEqual([0, 2, 4, 6, 8]);
    expect(spread(Array.from({ length: 100_000 }, (_, i) => i), 2_000)).toHaveLength(2_000);
  });
});
