import type { LimitSpec, LimitState } from '@tollgate/domain';

/** One request to decide: every limit is checked, and charged only if all of them pass. */
export interface DecisionRequest {
  /** The tenant's id: every key of the decision lives in its hash tag. */
  tenantId: string;
  /** Who inside the tenant is counted; undefined = the tenant as a whole. */
  subject?: string;
  cost: number;
  limits: readonly LimitSpec[];
}

export interface Decision {
  allowed: boolean;
  /** 0 when allowed; otherwise how long until every denying limit has room again. */
  retryAfterMs: number;
  /** The clock the decision was made on (Redis `TIME` in production), epoch milliseconds. */
  nowMs: number;
  limits: LimitState[];
}

/** Anything that decides: the Redis engine, and later the in-memory engine. */
export interface Limiter {
  decide(request: DecisionRequest): Promise<Decision>;
}
