/**
 * One algorithm bound to one rule: pure functions over a view of the rule's state at one instant (the view
 * is also what the memory engine stores). `lua/includes/<algorithm>.lua` implements the same functions with
 * the same integer arithmetic in the same order, so both engines give the same numbers.
 */
export interface AlgorithmModel<V> {
  /** The state at `now`; missing or stale state reads as empty. */
  open(stored: V | undefined, now: number): V;
  /** Whole units a request could take now: a cost is admitted iff it is at most this. */
  available(view: V): number;
  take(view: V, cost: number): V;
  /** Gives `cost` back, never above capacity. */
  give(view: V, cost: number): V;
  /** Ms until `cost` (more than `available`, at most the capacity) would be admitted. */
  retryAfterMs(view: V, cost: number): number;
  /** Ms until the full capacity is back (windows: until the window ends). */
  resetMs(view: V): number;
  /** Ms the state must be kept: after that it reads as empty. 0 = it is empty now (delete it). */
  ttlMs(view: V): number;
  /** Shaper only: ms the request just admitted waits before it proceeds. */
  delayMs?(view: V): number;
}
