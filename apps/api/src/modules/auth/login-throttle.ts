import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode, ipSubject } from '@tollgate/domain';
import { API_CONFIG, type ApiConfig } from '../../config/config';
import type { BackOffPolicy } from './back-off';
import { SelfLimiter, tryAgainIn } from './self-limiter';

/** The first wait, doubled after each further attempt in a row. */
const BASE_DELAY_MS = 1_000;
/** Attempts in a row are forgotten a day after the last one (and at once after a success). */
const KEEP_MS = 86_400_000;

/**
 * Slows down password guessing without letting anyone lock an account's owner out (OWASP's authentication
 * guidance; docs/adr/0011-sign-in-throttling.md):
 * - per account **and** client address, exponential back-off: after `LOGIN_FAILURES_BEFORE_DELAY` attempts in a
 *   row each attempt makes the next wait 1 s, 2 s, 4 s, … up to `LOGIN_MAX_DELAY_SECONDS`; a success starts over.
 *   Failures from other addresses never delay the owner's own;
 * - per client address across accounts, `LOGIN_ATTEMPTS_PER_MINUTE_PER_ADDRESS` attempts, right or wrong (spraying).
 * IPv6 addresses count per /64, like IP-scoped policies.
 */
@Injectable()
export class LoginThrottle {
  private readonly policy: BackOffPolicy;

  constructor(
    private readonly limits: SelfLimiter,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {
    this.policy = { freeAttempts: config.login.failuresBeforeDelay, baseMs: BASE_DELAY_MS, maxMs: config.login.maxDelayMs, keepMs: KEEP_MS };
  }

  /**
   * Runs `signIn` if `email` may try from `address` now, else 429 with Retry-After. A wrong password that makes
   * the next attempt wait says so with Retry-After on its 401.
   */
  async attempt<T>(email: string, address: string, signIn: () => Promise<T>): Promise<T> {
    const client = ipSubject(address) ?? address;
    await this.limits.admit('login-address', client, this.config.login.perAddressPerMinute, tooMany());
    const subject = `${email.toLowerCase()}\n${client}`;
    const attempt = await this.limits.attempt('login', subject, this.policy);
    if (!attempt.allowed) throw new AppError(ErrorCode.RATE_LIMITED, tooMany(attempt.retryAfterMs), undefined, { retryAfterMs: attempt.retryAfterMs });
    let result: T;
    try {
      result = await signIn();
    } catch (err) {
      if (err instanceof AppError && err.code === ErrorCode.UNAUTHENTICATED && attempt.delayMs > 0) {
        throw new AppError(err.code, err.message, err.field, { retryAfterMs: attempt.delayMs });
      }
      throw err;
    }
    await this.limits.forgive('login', subject);
    return result;
  }
}

function tooMany(retryAfterMs?: number): string {
  return `too many sign-in attempts; ${retryAfterMs === undefined ? 'try again later' : tryAgainIn(retryAfterMs)}`;
}
