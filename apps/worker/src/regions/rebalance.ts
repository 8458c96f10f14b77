/**
 * How the coordinator moves one window's allowances between regions (docs/adr/0025-one-quota-across-regions.md, the
 * safe rules of bench/regions.mjs's rebalancing): pure, so that the bound it keeps is tested on its own.
 *
 * What a region holds is what the coordinator last heard from it (`WindowView`); a region it cannot reach keeps its
 * allowance, which stays reserved (its last allowance, or its share of the limit in a window the coordinator never
 * heard it in: what it decides on by itself). The regions it hears from are given what they admitted and a part of
 * what is left in proportion to their demand since the last round (admitted and denied, plus a little for a region
 * that saw none). Units move in two steps: the regions above their target release (their own Redis lowers the
 * allowance, never below what they admitted, and says what it released), then the units free after those releases
 * are granted to the regions below it. So the allowances never add up to more than the limit, whatever is late or lost.
 */

/** One region's window as the coordinator knows it. */
export interface WindowView {
  /** Heard from this round. */
  reachable: boolean;
  /** Units it admitted in the window (last heard). */
  count: number;
  /** What it may admit in the window (last heard, or its share; raised by grants whose answer was lost). */
  allowance: number;
  /** Its demand since the last round: units admitted and requests denied there. */
  demand: number;
}

/** What a round asks of each region: `release` to lower to the target (at least its count), `grant` to add units. */
export type Move = { region: number; release: number } | { region: number; grant: number };

/** The allowance a region that saw no demand since the last round is given a part for (it may see some). */
const QUIET_DEMAND = 0.5;

/** Each reachable region's target: what it admitted and its part of what is left; an unreachable region's allowance stays. */
export function targets(limit: number, regions: readonly WindowView[]): number[] {
  const reserved = regions.reduce((sum, r) => sum + (r.reachable ? r.count : Math.max(r.allowance, r.count)), 0);
  const left = Math.max(0, limit - reserved);
  const parts = splitByWeight(left, regions.map((r) => (r.reachable ? r.demand + QUIET_DEMAND : 0)));
  return regions.map((r, i) => (r.reachable ? r.count + (parts[i] as number) : r.allowance));
}

/** The releases of a round: every reachable region above its target, down to it. */
export function releases(limit: number, regions: readonly WindowView[]): Move[] {
  const goal = targets(limit, regions);
  return regions.flatMap((r, i) => (r.reachable && r.allowance > (goal[i] as number) ? [{ region: i, release: goal[i] as number }] : []));
}

/**
 * The grants of a round, once the releases were answered (`regions` holds what each region said): the units no region
 * holds (the limit less every allowance, a cut-off region's included) go to the regions below their target.
 */
export function grants(limit: number, regions: readonly WindowView[]): Move[] {
  const goal = targets(limit, regions);
  let free = limit - regions.reduce((sum, r) => sum + r.allowance, 0);
  const moves: Move[] = [];
  regions.forEach((r, i) => {
    const wanted = (goal[i] as number) - r.allowance;
    if (!r.reachable || wanted <= 0 || free <= 0) return;
    const grant = Math.min(wanted, free);
    free -= grant;
    moves.push({ region: i, grant });
  });
  return moves;
}

/** `total` in integer parts proportional to `weights` (largest remainders); nothing when every weight is 0. */
export function splitByWeight(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum <= 0) return weights.map(() => 0);
  const exact = weights.map((w) => (total * w) / sum);
  const parts = exact.map(Math.floor);
  const order = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0]);
  let rest = total - parts.reduce((a, b) => a + b, 0);
  for (const [, i] of order) {
    if (rest <= 0) break;
    parts[i] = (parts[i] as number) + 1;
    rest -= 1;
  }
  return parts;
}
