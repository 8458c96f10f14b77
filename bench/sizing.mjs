// Pure arithmetic behind the capacity figures (bench/capacity.mjs) and the sizing rule in README "Running at scale".
// No I/O: test/bench/sizing.spec.ts checks it.

/** Least-squares line through `points` ({ x, y }): `{ slope, intercept }`. Needs two distinct x at least. */
export function linearFit(points) {
  const n = points.length;
  if (n < 2) throw new Error('a line needs two points at least');
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  if (sxx === 0) throw new Error('a line needs two distinct x at least');
  const slope = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0) / sxx;
  return { slope, intercept: my - slope * mx };
}

/**
 * The x at which the line through `points` reaches `budget` (extrapolated past the measured points when it lies
 * beyond them): how many tenants a rollup period holds, from seconds per minute rolled up at measured tenant counts.
 * Infinity when the line does not grow.
 */
export function xAtBudget(points, budget) {
  const { slope, intercept } = linearFit(points);
  if (slope <= 0) return Number.POSITIVE_INFINITY;
  return (budget - intercept) / slope;
}

/** Decisions a second one fully busy core gives, at `cpuUsPerDecision` µs of its CPU each. */
export const perCore = (cpuUsPerDecision) => (cpuUsPerDecision > 0 ? 1e6 / cpuUsPerDecision : Number.POSITIVE_INFINITY);

/**
 * How many units (API cores, Redis primaries) carry `rate` decisions a second when one gives `perUnit` at full
 * load and is run at `utilisation` of that (headroom for bursts, a lost node, garbage collection): at least one.
 */
export function unitsFor(rate, perUnit, utilisation = 0.6) {
  if (!(utilisation > 0 && utilisation <= 1)) throw new Error('utilisation is a share in (0, 1]');
  return Math.max(1, Math.ceil(rate / (perUnit * utilisation)));
}

/** `n` items chosen evenly from `items` (all of them when there are no more than `n`), first and order kept. */
export function spread(items, n) {
  if (items.length <= n) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)]);
}
