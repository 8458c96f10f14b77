export { TollgateClient, type CallOptions, type CheckInput, type FailMode, type LeaseInput, type TollgateClientOptions } from './client';
export { TollgateError, type TollgateErrorOptions } from './errors';
export { fullJitterDelay, type BackoffOptions } from './backoff';
export { retryAfterMs } from './retry-after';
export { ErrorCode } from '@tollgate/domain';
export type { BatchCheckResult, CheckResult, LeaseResult } from '@tollgate/domain';
