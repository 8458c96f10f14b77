/**
 * What a decision does to one rule (limit.lua chooses it the same way): `take` charges and is stored, `peek` charges
 * the view only (the numbers after a hypothetical take), `give` gives back and is stored, `deny` leaves the view and
 * says when the cost would fit, `hold` leaves it (this rule admits, another denies).
 */
export type ApplyMode = 'take' | 'peek' | 'give' | 'deny' | 'hold';

/** A rule's numbers in a decision and its view after it (`<algorithm>Apply` in Lua returns the same). */
export interface Applied<V> {
  remaining: number;
  resetMs: number;
  /** `deny` only; 0 otherwise. */
  retryAfterMs: number;
  /** Shaper only: ms the request just admitted waits before it proceeds. */
  delayMs: number;
  view: V;
}

/**
 * One algorithm bound to one rule, in the shape of its Lua (`lua/includes/<algorithm>.lua`): `open` reads the
 * stored state at an instant into a view and the units it has available (`<algorithm>Open`), `apply` makes a
 * decision on the view, writing nowhere (`<algorithm>Apply`), `store` says what is kept of a view and for how
 * long (`<algorithm>Store`). Both sides use the same integer arithmetic in the same order, so both engines give
 * the same numbers; the memory engine keeps the view itself.
 */
export interface AlgorithmModel<V> {
  /** The state at `now`; missing or stale state reads as empty. */
  open(stored: V | undefined, now: number): { available: number; view: V };
  apply(view: V, cost: number, mode: ApplyMode): Applied<V>;
  /** The view to keep after a decision whose reset was `resetMs`, and for how many ms (0: delete it now). */
  store(view: V, resetMs: number): { value: V; ttlMs: number };
}

/** An algorithm's arithmetic on its view, from which `applyWith` makes its `apply`. */
export interface ViewArithmetic<V> {
  /** Whole units a request could take now: a cost is admitted iff it is at most this. */
  available(view: V): number;
  take(view: V, cost: number): V;
  /** Gives `cost` back, never above capacity. */
  give(view: V, cost: number): V;
  /** Ms until `cost` (more than `available`, at most the capacity) would be admitted. */
  retryAfterMs(view: V, cost: number): number;
  /** Ms until the full capacity is back (windows: until the window ends). */
  resetMs(view: V): number;
  /** Shaper only: ms a request admitted on this view waits before it proceeds. */
  delayMs?(view: V): number;
}

/**
 * `<algorithm>Apply` from an algorithm's arithmetic, with the mode chain every Lua Apply has (`if mode == 'deny' …
 * elseif mode == 'give' … elseif mode ~= 'hold'`): the numbers are read off the view after the change.
 */
export function applyWith<V>(arithmetic: ViewArithmetic<V>): AlgorithmModel<V>['apply'] {
  return (view, cost, mode) => {
    let after = view;
    let retryAfterMs = 0;
    if (mode === 'deny') retryAfterMs = arithmetic.retryAfterMs(view, cost);
    else if (mode === 'give') after = arithmetic.give(view, cost);
    else if (mode !== 'hold') after = arithmetic.take(view, cost);
    const taken = mode === 'take' || mode === 'peek';
    const delayMs = taken && arithmetic.delayMs ? arithmetic.delayMs(after) : 0;
    return { remaining: arithmetic.available(after), resetMs: arithmetic.resetMs(after), retryAfterMs, delayMs, view: after };
  };
}

/** What most algorithms keep: the view, until it is empty again (`resetMs`). */
export function keepUntilReset<V>(view: V, resetMs: number): { value: V; ttlMs: number } {
  return { value: view, ttlMs: resetMs };
}

/**
 * An algorithm's model from its three parts: how it opens stored state into a view at an instant, its arithmetic
 * (which `apply` runs), and what it stores.
 */
export function modelFrom<V>(
  openView: (stored: V | undefined, now: number) => V,
  arithmetic: ViewArithmetic<V>,
  store: AlgorithmModel<V>['store'] = keepUntilReset,
): AlgorithmModel<V> {
  return {
    open(stored, now) {
      const view = openView(stored, now);
      return { available: arithmetic.available(view), view };
    },
    apply: applyWith(arithmetic),
    store,
  };
}
