import type { LimitSpec } from '@tollgate/domain';
import type { LimitRule } from '@tollgate/limiter';

/** A compiled limit as the limiter engine runs it. */
export function toLimitRule(spec: LimitSpec): LimitRule {
  return {
    name: spec.name,
    algorithm: spec.algorithm,
    limit: spec.limit,
    windowMs: spec.windowS * 1000,
    ...(spec.burst === undefined ? {} : { burst: spec.burst }),
  };
}
