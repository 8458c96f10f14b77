import { clusterSlotOf } from '@tollgate/limiter';
import type { RedisClient } from '@tollgate/nest-infra';
import { type CircuitBreakerPolicy, CircuitState, circuitBreaker, ConsecutiveBreaker, handleAll } from 'cockatiel';
import { Cluster } from 'ioredis';

/** The node label of a single Redis's one breaker. */
export const SINGLE_NODE = 'redis';
/** The node label of the slots whose primary the client does not know (yet): they share one breaker. */
export const UNKNOWN_NODE = 'unknown';
/** The most nodes with a breaker of their own (and a metric label); past it, closed breakers of nodes that own no slot are dropped. */
const MAX_NODES = 32;

export interface NodeBreakersOptions {
  /** Consecutive failures that open a node's circuit. */
  failures: number;
  /** How long an open circuit answers without asking its node, before one call tries again. */
  cooldownMs: number;
  /** A node's circuit opened (`true`: open or half-open) or closed; also called once, closed, when its breaker is made. */
  onState?: (node: string, open: boolean) => void;
  /** A node's breaker was dropped (it owns no slot any more). */
  onForgotten?: (node: string) => void;
}

/**
 * One circuit breaker per Redis node: on a Redis Cluster, per primary, found from the slot of the tenant's hash tag
 * (every key of a decision has it) in the client's slot map; on a single Redis, one. A primary that fails opens the
 * circuit of the tenants whose slots it owns and no other: tenants on healthy primaries keep being decided by Redis.
 * Once the client has learnt a promoted replica as the slots' owner, their calls go through that node's own (closed)
 * breaker. docs/adr/0027-failures-stay-on-their-node.md.
 */
export class NodeBreakers {
  private readonly breakers = new Map<string, CircuitBreakerPolicy>();

  constructor(
    private readonly client: RedisClient,
    private readonly options: NodeBreakersOptions,
  ) {
    // A single Redis's one breaker exists (and shows closed) from the start.
    if (!(client instanceof Cluster)) this.breakerOf(SINGLE_NODE);
  }

  /** `host:port` of the primary that owns the slot of `keyPrefix` (as the client knows it), `unknown`, or `redis` for a single server. */
  nodeOf(keyPrefix: string): string {
    if (!(this.client instanceof Cluster)) return SINGLE_NODE;
    return this.client.slots[clusterSlotOf(keyPrefix)]?.[0] ?? UNKNOWN_NODE;
  }

  /** Runs `call` through the breaker of the node that owns `keyPrefix`'s slot. */
  execute<T>(keyPrefix: string, call: () => Promise<T>): Promise<T> {
    return this.breakerOf(this.nodeOf(keyPrefix)).execute(call);
  }

  /** Whether `node`'s circuit is open or half-open (false for a node without a breaker). */
  isOpen(node: string): boolean {
    const breaker = this.breakers.get(node);
    return breaker !== undefined && breaker.state !== CircuitState.Closed;
  }

  private breakerOf(node: string): CircuitBreakerPolicy {
    const held = this.breakers.get(node);
    if (held) return held;
    if (this.breakers.size >= MAX_NODES) this.forgetGone();
    if (this.breakers.size >= MAX_NODES && node !== UNKNOWN_NODE) return this.breakerOf(UNKNOWN_NODE);
    const { failures, cooldownMs, onState } = this.options;
    const breaker = circuitBreaker(handleAll, { halfOpenAfter: cooldownMs, breaker: new ConsecutiveBreaker(failures) });
    breaker.onStateChange((state) => onState?.(node, state !== CircuitState.Closed));
    this.breakers.set(node, breaker);
    onState?.(node, false);
    return breaker;
  }

  /** Drops the closed breakers of nodes that own no slot (a failed primary replaced, a node removed). */
  private forgetGone(): void {
    const owners = new Set(this.client instanceof Cluster ? this.client.slots.map((nodes) => nodes?.[0]) : [SINGLE_NODE]);
    for (const [node, breaker] of this.breakers) {
      if (breaker.state !== CircuitState.Closed || owners.has(node) || node === UNKNOWN_NODE) continue;
      this.breakers.delete(node);
      this.options.onForgotten?.(node);
    }
  }
}
