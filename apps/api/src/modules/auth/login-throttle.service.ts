import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppError, ErrorCode } from '@tollgate/domain';
import { type LimitRule, RedisEngine } from '@tollgate/limiter';
import { API_CONFIG, type ApiConfig } from '../../config/config';

/** Tollgate's own quota namespace for protecting its login (not a tenant: never in a rule set). */
const AUTH_NAMESPACE = 'tollgate:auth';

const perMinute = (name: string, attempts: number): LimitRule[] => [
  { name, algorithm: 'token_bucket', limit: attempts, windowMs: 60_000, burst: attempts },
];

/**
 * Slows down password guessing with Tollgate's own limiter: `LOGIN_ATTEMPTS_PER_MINUTE` per account and
 * `LOGIN_ATTEMPTS_PER_MINUTE_PER_ADDRESS` per client address (token buckets). Every attempt counts, right or
 * wrong. If Redis is away, logins go on (logged): locking every operator out during an outage would be worse.
 */
@Injectable()
export class LoginThrottle {
  private readonly log = new Logger(LoginThrottle.name);
  private readonly perAccount: LimitRule[];
  private readonly perAddress: LimitRule[];

  constructor(
    private readonly limiter: RedisEngine,
    @Inject(API_CONFIG) config: ApiConfig,
  ) {
    this.perAccount = perMinute('login-account', config.login.perAccountPerMinute);
    this.perAddress = perMinute('login-address', config.login.perAddressPerMinute);
  }

  async admit(email: string, address: string): Promise<void> {
    const steps: [LimitRule[], string][] = [[this.perAddress, address], [this.perAccount, email.toLowerCase()]];
    for (const [rules, subject] of steps) {
      let decision;
      try {
        decision = await this.limiter.consume({ tenantId: AUTH_NAMESPACE, subject, cost: 1, rules });
      } catch (err) {
        this.log.warn(`login throttle unavailable, attempt allowed: ${String(err)}`);
        return;
      }
      if (!decision.allowed) {
        throw new AppError(ErrorCode.RATE_LIMITED, 'too many sign-in attempts; try again later', undefined, {
          retryAfterMs: decision.retryAfterMs,
        });
      }
    }
  }
}
