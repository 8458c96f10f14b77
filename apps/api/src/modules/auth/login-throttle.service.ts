import { Inject, Injectable } from '@nestjs/common';
import { API_CONFIG, type ApiConfig } from '../../config/config';
import { SelfLimiter } from './self-limiter.service';

const MESSAGE = 'too many sign-in attempts; try again later';

/**
 * Slows down password guessing: `LOGIN_ATTEMPTS_PER_MINUTE` per account and
 * `LOGIN_ATTEMPTS_PER_MINUTE_PER_ADDRESS` per client address. Every attempt counts, right or wrong.
 */
@Injectable()
export class LoginThrottle {
  constructor(
    private readonly limits: SelfLimiter,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  async admit(email: string, address: string): Promise<void> {
    await this.limits.admit('login-address', address, this.config.login.perAddressPerMinute, MESSAGE);
    await this.limits.admit('login-account', email.toLowerCase(), this.config.login.perAccountPerMinute, MESSAGE);
  }
}
