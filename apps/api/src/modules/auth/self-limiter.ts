import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppError, ErrorCode } from '@tollgate/domain';
import { MemoryEngine, prepareRules, type PreparedRules, RedisEngine } from '@tollgate/limiter';
import type { RedisClient } from '@tollgate/nest-infra';
import { REDIS } from '../../infra/infra.module';
import { type BackOffAttempt, type BackOffPolicy, MemoryBackOff, RedisBackOff } from './back-off';

/** Tollgate's own quota namespace (not a tenant: never in a rule set). */
const SELF_NAMESPACE = 'tollgate:self';
/** Subjects each in-memory stand-in keeps at most during a Redis outage. */
const LOCAL_ENTRIES = 100_000;

/** "try again in N seconds": how a refusal says when, in the words its message ends with. */
export function tryAgainIn(retryAfterMs: number): string {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return `try again in ${seconds} second${seconds === 1 ? '' : 's'}`;
}

/**
 * Tollgate protecting itself with its own limiter (sign-in attempts, key creation, webhook sends and changes by hand):
 * token buckets of `perMinute` per subject, and exponential back-off of attempts in a row. Counted on Redis, so every API node sees the same
 * numbers. While Redis is away they are counted in this node's memory instead (the same algorithms: the limiter's
 * `MemoryEngine` and the back-off's memory twin), so throttling goes on per node rather than stopping; the outage is
 * logged once when it starts and once when Redis answers again.
 */
@Injectable()
export class SelfLimiter {
  private readonly log = new Logger(SelfLimiter.name);
  /** The rules of each (name, rate), prepared the first time they are used (a handful: one per throttled action). */
  private readonly rules = new Map<string, PreparedRules>();
  private readonly local = new MemoryEngine({ maxEntries: LOCAL_ENTRIES });
  private readonly backOffs = new Map<string, { redis: RedisBackOff; local: MemoryBackOff }>();
  /** Whether the last call to Redis failed: the outage that is logged once. */
  private redisDown = false;

  constructor(
    private readonly limiter: RedisEngine,
    @Inject(REDIS) private readonly redis: RedisClient,
  ) {}

  /**
   * Admits `cost` actions of `subject` under `perMinute` a minute (a token bucket holding a minute's worth; `cost` at
   * most `perMinute`), or throws 429 `rate_limited` with Retry-After and `message` (given the wait, when a function).
   */
  async admit(name: string, subject: string, perMinute: number, message: string | ((retryAfterMs: number) => string), cost = 1): Promise<void> {
    const request = { tenantId: SELF_NAMESPACE, subject, cost, rules: this.rulesOf(name, perMinute) };
    const decision = await this.counted(
      () => this.limiter.consume(request),
      () => this.local.consume(request),
    );
    if (!decision.allowed) {
      const text = typeof message === 'string' ? message : message(decision.retryAfterMs);
      throw new AppError(ErrorCode.RATE_LIMITED, text, undefined, { retryAfterMs: decision.retryAfterMs });
    }
  }

  /** Counts an attempt of `subject` under the back-off `name` (see back-off.ts). */
  attempt(name: string, subject: string, policy: BackOffPolicy): Promise<BackOffAttempt> {
    const stores = this.backOffOf(name);
    return this.counted(
      () => stores.redis.attempt(subject, policy),
      () => stores.local.attempt(subject, policy),
    );
  }

  /** Forgets `subject`'s attempts in a row (after a success). */
  async forgive(name: string, subject: string): Promise<void> {
    const stores = this.backOffOf(name);
    await stores.local.forgive(subject);
    await this.counted(
      () => stores.redis.forgive(subject),
      async () => undefined,
    );
  }

  /** `onRedis()`, or `locally()` when Redis fails: the node goes on counting on its own. */
  private async counted<T>(onRedis: () => Promise<T>, locally: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await onRedis();
    } catch (err) {
      if (err instanceof AppError) throw err; // the engine refused the input: an answer, not an outage
      if (!this.redisDown) {
        this.redisDown = true;
        this.log.warn(`Redis is unavailable (${String(err)}): Tollgate's own limits (sign-ins, key creation, webhook sends) are counted in this node's memory until it is back`);
      }
      return locally();
    }
    if (this.redisDown) {
      this.redisDown = false;
      this.log.log("Redis is back: Tollgate's own limits are counted on Redis again");
    }
    return result;
  }

  private rulesOf(name: string, perMinute: number): PreparedRules {
    const id = `${name}/${perMinute}`;
    let rules = this.rules.get(id);
    if (!rules) {
      rules = prepareRules([{ name, algorithm: 'token_bucket', limit: perMinute, windowMs: 60_000, burst: perMinute }]);
      this.rules.set(id, rules);
    }
    return rules;
  }

  private backOffOf(name: string): { redis: RedisBackOff; local: MemoryBackOff } {
    let stores = this.backOffs.get(name);
    if (!stores) {
      stores = { redis: new RedisBackOff(this.redis, SELF_NAMESPACE, name), local: new MemoryBackOff(LOCAL_ENTRIES) };
      this.backOffs.set(name, stores);
    }
    return stores;
  }
}
