import { Injectable, Logger } from '@nestjs/common';
import { AppError, ErrorCode } from '@tollgate/domain';
import { type LimitRule, RedisEngine } from '@tollgate/limiter';

/** Tollgate's own quota namespace (not a tenant: never in a rule set). */
const SELF_NAMESPACE = 'tollgate:self';

/**
 * Tollgate protecting itself with its own limiter (sign-in attempts, key creation): a token bucket of
 * `perMinute` per subject. If Redis is away the action goes on (logged): locking every operator out during an
 * outage would be worse than a few unthrottled attempts.
 */
@Injectable()
export class SelfLimiter {
  private readonly log = new Logger(SelfLimiter.name);
  /** One rules array per (name, rate): the engine validates an array once and caches it. */
  private readonly rules = new Map<string, LimitRule[]>();

  constructor(private readonly limiter: RedisEngine) {}

  async admit(name: string, subject: string, perMinute: number, message: string): Promise<void> {
    const id = `${name}/${perMinute}`;
    let rules = this.rules.get(id);
    if (!rules) {
      rules = [{ name, algorithm: 'token_bucket', limit: perMinute, windowMs: 60_000, burst: perMinute }];
      this.rules.set(id, rules);
    }
    let decision;
    try {
      decision = await this.limiter.consume({ tenantId: SELF_NAMESPACE, subject, cost: 1, rules });
    } catch (err) {
      this.log.warn(`self limit ${name} unavailable, action allowed: ${String(err)}`);
      return;
    }
    if (!decision.allowed) throw new AppError(ErrorCode.RATE_LIMITED, message, undefined, { retryAfterMs: decision.retryAfterMs });
  }
}
