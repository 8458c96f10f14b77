import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TOLLGATE_OPTIONS, TollgateGuard, type TollgateGuardOptions } from './tollgate.guard';

export interface TollgateModuleOptions extends TollgateGuardOptions {
  /** Registers `TollgateGuard` for every route (only `@RateLimit` routes are checked); default true. */
  global?: boolean;
}

/**
 * `TollgateModule.forRoot({ client, tenant: (req) => … })` in the root module, then `@RateLimit({ cost })`
 * on routes. With `global: false`, apply `@UseGuards(TollgateGuard)` where wanted.
 */
@Module({})
export class TollgateModule {
  static forRoot(options: TollgateModuleOptions): DynamicModule {
    const providers: Provider[] = [{ provide: TOLLGATE_OPTIONS, useValue: options }, TollgateGuard];
    if (options.global !== false) providers.push({ provide: APP_GUARD, useExisting: TollgateGuard });
    return { module: TollgateModule, global: true, providers, exports: [TOLLGATE_OPTIONS, TollgateGuard] };
  }
}
