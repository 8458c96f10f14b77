/**
 * Integer arithmetic shared by every algorithm, mirrored by `lua/includes/common.lua` (the same results; Lua's
 * ceilDiv computes them with `%`, cheaper there than a call of math.floor).
 * Every number stays an integer below 2^53 (rule validation keeps products of capacity and window at or
 * below 2^52), which doubles hold exactly in both languages; `floor(a / b)` is then exact as well.
 */

/** The largest capacity × window (or limit × window) a rule may have: intermediate sums stay below 2^53. */
export const MAX_EXACT_PRODUCT = 2 ** 52;

export function floorDiv(a: number, b: number): number {
  return Math.floor(a / b);
}

/** ceil(a / b) for integers, b > 0. */
export function ceilDiv(a: number, b: number): number {
  const q = Math.floor(a / b);
  return q * b < a ? q + 1 : q;
}
