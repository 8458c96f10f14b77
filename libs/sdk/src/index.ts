export { TollgateClient, type CallOptions, type CheckInput, type FailMode, type LeaseInput, type TollgateClientOptions } from './client';
export { TollgateError, type TollgateErrorOptions } from './errors';
export { LeasedLimiter, type LeasedLimiterOptions, type LeaseSource, type LeaseTarget, type LocalDecision } from './leased-limiter';
export { TokenBucket, type AcquireOptions, type RetryOptions, type TokenBucketOptions, type TokenBucketStats } from './token-bucket';
export { ManualClock, systemClock, type Clock } from './clock';
export { fullJitterDelay, type BackoffOptions } from './backoff';
export { retryAfterMs } from './retry-after';
export { ErrorCode, REFUSAL_REASONS, UNAVAILABLE_REASON } from '@tollgate/domain/wire';
export type { BatchCheckResult, CheckResult, EnforcementMode, LeaseResult, LimitState, RefusalReason } from '@tollgate/domain/wire';
