import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { AppError } from '@tollgate/domain';
import { DeadlineExceeded, type Decision, type Lease, type LeaseRequest, type LimitRequest, MemoryEngine, RedisEngine } from '@tollgate/limiter';
import { duplicateClient, type RedisClient } from '@tollgate/nest-infra';
import { API_CONFIG, type ApiConfig } from '../../config/config';
import { REDIS } from '../../infra/infra.module';
import { MetricsService } from '../metrics/metrics.service';
import { NodeBreakers, UNKNOWN_NODE } from './node-breakers';

/** Redis did not decide: it failed, missed the deadline, or the circuit is open. The failure mode decides instead. */
export class QuotaStoreUnavailable extends Error {
  constructor(
    readonly retryAfterMs: number,
    options?: { cause?: unknown },
  ) {
    super('the quota store is unavailable', options);
  }

  /**
   * What the failure mode answered instead (call it in the turn this error came in): Redis's reply to a call that
   * missed its deadline may still come, and then what it charged stays only if the client was shown 'allowed' (its
   * count is taken back either way: the caller counts the answer it gave). docs/adr/0021-one-request-one-decision.md.
   */
  answered(allowed: boolean): void {
    if (this.cause instanceof DeadlineExceeded) this.cause.answered(allowed);
  }
}

export type Operation = 'consume' | 'peek' | 'refund';

/**
 * The limiter with its failure handling (Redis down or slow; the failure modes): every script call to Redis has a short deadline
 * (`DECISION_DEADLINE_MS`: one timer per call, which decides a batch of one tenant's decisions); Redis's failures
 * count towards a circuit breaker that, once open, answers at once without asking Redis for `BREAKER_COOLDOWN_MS`,
 * then lets one call try again. There is one breaker per Redis node (on a Redis Cluster, the primary that owns the
 * tenant's slot: `NodeBreakers`), so a failing primary sends only its own tenants to their failure modes. The
 * breaker, like the deadline, is per script call (the engine's `guard`): a batch of decisions is one request to Redis
 * and one failure of it. When Redis does not
 * decide, `QuotaStoreUnavailable` says so; the caller applies the policy's failure mode, and `local` decides on
 * this node's memory engine at limit ÷ `LOCAL_FAILOVER_NODES`.
 */
@Injectable()
export class ResilientLimiter implements OnApplicationShutdown {
  private readonly local = new MemoryEngine({ maxEntries: 100_000 });
  /** The circuit breakers, one per Redis node. */
  readonly breakers: NodeBreakers;
  private readonly cooldownMs: number;
  /** The engine of the checks: every script call has the decision deadline, and its duration is observed. */
  private readonly redis: RedisEngine;
  /** The connections of the checks that wait for replicas (`WAIT` blocks each until it returns). */
  private readonly waiting: RedisClient[];

  constructor(
    @Inject(REDIS) client: RedisClient,
    private readonly metrics: MetricsService,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {
    const { deadlineMs, breakerFailures, breakerCooldownMs } = config.failover;
    this.cooldownMs = breakerCooldownMs;
    // Failures of Redis open the circuit: errors of the script call, including ioredis's own command timeout. A
    // missed deadline is not one (the deadline is outside the breaker): under a burst the process's own event loop
    // can be late, and that must cost the late decisions their answer from Redis, not every check for a cooldown.
    this.breakers = new NodeBreakers(client, {
      failures: breakerFailures,
      cooldownMs: breakerCooldownMs,
      onState: (node, open) => metrics.breakerOpen.set({ node }, open ? 1 : 0),
      onForgotten: (node) => metrics.breakerOpen.remove({ node }),
    });
    const { connections, ...replicaAck } = config.limiter.replicaAck;
    // WAIT holds its reply for up to the acknowledgement timeout: the command timeout of these connections counts
    // from after it, or a WAIT that runs out would look like a failed call.
    const commandTimeout = config.redis.commandTimeoutMs + replicaAck.timeoutMs;
    this.waiting = Array.from({ length: connections }, () => {
      const connection = duplicateClient(client, { commandTimeout });
      // Its failures reach the calls it carries (each answered by its failure mode, counted with its cause); without a
      // listener ioredis would also print each one to stderr as an unhandled error event while Redis is away.
      connection.on('error', () => undefined);
      return connection;
    });
    this.redis = new RedisEngine(client, {
      deadlineMs,
      onScriptCall: (ms) => metrics.decisionSeconds.observe(ms / 1000),
      guard: (call, keyPrefix) => this.breakers.execute(keyPrefix, call),
      clockOf: (keyPrefix) => {
        const node = this.breakers.nodeOf(keyPrefix);
        return node === UNKNOWN_NODE ? undefined : node;
      },
      onLateReply: (outcome) => metrics.lateReplies.inc({ outcome }),
      earlierCounters: config.limiter.earlierCounters,
      replicaAck: { clients: this.waiting, ...replicaAck },
    });
  }

  onApplicationShutdown(): void {
    for (const connection of this.waiting) connection.disconnect();
  }

  consume(request: LimitRequest): Promise<Decision> {
    return this.onRedis('consume', request);
  }

  peek(request: LimitRequest): Promise<Decision> {
    return this.onRedis('peek', request);
  }

  refund(request: LimitRequest): Promise<Decision> {
    return this.onRedis('refund', request);
  }

  lease(request: LeaseRequest): Promise<Lease> {
    return this.redis.lease(request).catch(this.unavailable);
  }

  /** The `local` failure mode on this node's own memory: `request`'s rules are this node's share of every limit. */
  locally(operation: Operation, request: LimitRequest): Promise<Decision> {
    return this.local[operation](request);
  }

  private onRedis(operation: Operation, request: LimitRequest): Promise<Decision> {
    return this.redis[operation](request).catch(this.unavailable);
  }

  /** Redis did not decide (an input error is an answer, and stays one). */
  private readonly unavailable = (err: unknown): never => {
    if (err instanceof AppError) throw err;
    throw new QuotaStoreUnavailable(this.cooldownMs, { cause: err });
  };
}
