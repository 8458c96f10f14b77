/**
 * The check routes as their callers see them: the bodies `POST /v1/check` (and peek, refund, lease, batch)
 * take and the decisions they answer. Plain types and constants, importing nothing: the SDK's published build
 * carries a copy of this module (see wire.ts). The zod schemas that validate these bodies live in check.ts,
 * which proves at compile time that they parse to exactly these types.
 */

/** The most checks one `POST /v1/check/batch` may carry. */
export const MAX_BATCH_CHECKS = 100;

/** What every check names: the tenant (by slug, or by its API key), the endpoint, and who and where from. */
export interface CheckTarget {
  /** The tenant's slug; exactly one of `tenant` and `key`. */
  tenant?: string;
  /** The tenant's own API key, which Tollgate verifies (unknown, revoked or expired keys are a denial with a reason). */
  key?: string;
  /** `METHOD /path` of the request being checked, e.g. `POST /v1/messages`: picks the endpoint policy. */
  endpoint: string;
  /** Who inside the tenant (user id, …) for policies scoped per subject. */
  subject?: string;
  /** The client's address, for policies scoped per IP (IPv6 counted per /64). */
  ip?: string;
}

/** Body of `POST /v1/check` (also `/v1/check/peek` and `/v1/check/refund`), `cost` defaulted to 1. */
export interface CheckRequest extends CheckTarget {
  cost: number;
}

/** Body of `POST /v1/check/lease`: take up to `max` units at once, to spend locally. */
export interface LeaseRequest extends CheckTarget {
  max: number;
}

export type EnforcementMode = 'enforce' | 'shadow';

/**
 * Why a check is refused before any limit is asked (`allowed: false`, nothing charged): the one list of the
 * `reason`s the API answers. The OpenAPI document's enum of `reason` is this list.
 * - `key_invalid`: the tenant key is unknown or revoked,
 * - `key_expired`: the tenant key is past its expiry,
 * - `tenant_suspended`: the tenant is suspended,
 * - `tenant_not_allowed`: a valid tenant key of a tenant the service key may not check (forward-auth and the SDK's
 *   middleware answer it 403: the client's key is fine, this service may not serve its tenant).
 * Usage counts each refused check (result `refused`) with its reason.
 */
export const REFUSAL_REASONS = ['key_invalid', 'key_expired', 'tenant_suspended', 'tenant_not_allowed'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** Forward-auth's reasons: a check's, and `key_missing` when the original request carries no tenant key. */
export const FORWARD_AUTH_REASONS = [...REFUSAL_REASONS, 'key_missing'] as const;
export type ForwardAuthReason = (typeof FORWARD_AUTH_REASONS)[number];

/** The reason of the pass an SDK client decides by itself when Tollgate does not answer and it fails open: never the API's. */
export const UNAVAILABLE_REASON = 'tollgate_unavailable';

/** What one limit looked like when a decision was made; times in milliseconds from the decision. */
export interface LimitState {
  name: string;
  limit: number;
  remaining: number;
  resetMs: number;
  windowS: number;
}

/** A decision: a denial is a value (`allowed: false`), never an error. */
export interface CheckResult {
  allowed: boolean;
  /** `shadow`: the policy is being tried out: decided and counted, never denied (see `wouldDeny`). */
  mode: EnforcementMode;
  /** Shadow mode only: the decision enforce mode would have made. */
  wouldDeny?: boolean;
  retryAfterMs: number;
  /** Leaky bucket shaper: the request is admitted but should proceed after this many ms. */
  delayMs?: number;
  ruleVersion: number;
  /** The tenant decided for (useful when the check named a key). */
  tenant?: string;
  /** The endpoint policy that matched, if any. */
  policy?: string;
  limits: LimitState[];
  headers: Record<string, string>;
  /** Why a request is denied without counting (REFUSAL_REASONS); the SDK's own fail-open pass says `tollgate_unavailable`. */
  reason?: RefusalReason | typeof UNAVAILABLE_REASON;
  /** Redis could not be asked in time: decided by the policy's failure mode (`open` or `local`). */
  degraded?: boolean;
}

/** The answer of `POST /v1/check/lease`: `granted` units were taken from every limit (0 when denied). */
export interface LeaseResult extends CheckResult {
  granted: number;
}

/** The answer of `POST /v1/check/batch`: per check, its result or its own error (a bad check fails alone). */
export interface BatchCheckResult {
  results: (CheckResult | { error: { code: string; message: string; field?: string } })[];
}

/** Seconds rounded up, as `Retry-After` carries them: 20.5 s is 21, never 20 (a client that retries at 20 s would be denied again). */
export function secondsUp(ms: number): number {
  return Math.ceil(ms / 1000);
}
