export { RateLimit, RATE_LIMIT_METADATA } from './rate-limit.decorator';
export { TollgateGuard, TOLLGATE_OPTIONS, type GuardRequest, type TollgateGuardOptions } from './tollgate.guard';
export { TollgateModule, type TollgateModuleOptions } from './tollgate.module';
export type { Resolve, RouteLimit } from '../http/enforce';
