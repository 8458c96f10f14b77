import { z } from 'zod';
import type { LimitState } from './limits';
import { safeText, slug } from './text';

export const MAX_COST = 1_000_000;

/** The most checks one `POST /v1/check/batch` may carry. */
export const MAX_BATCH_CHECKS = 100;

/** The longest tenant API key a check may carry (real ones are far shorter). */
export const MAX_TENANT_KEY_LENGTH = 128;

/** A tenant's API key as a check carries it (`tg_live_t_…`); verified against hashes in the rule set. */
const tenantKey = z.string().min(1, 'must not be empty').max(MAX_TENANT_KEY_LENGTH, `must be at most ${MAX_TENANT_KEY_LENGTH} characters`);

/** A client address (IPv4, IPv6 or IPv4-mapped IPv6), for policies scoped per IP. */
export const ipSchema = z.union([z.ipv4(), z.ipv6()], { error: 'must be an IPv4 or IPv6 address' });

const checkFields = {
  /** The tenant's slug, or… */
  tenant: slug.optional(),
  /** …the tenant's API key, which Tollgate verifies (unknown, revoked or expired keys are a denial with a reason). */
  key: tenantKey.optional(),
  /** `METHOD /path` of the request being checked, e.g. `POST /v1/messages`: picks the endpoint policy. */
  endpoint: safeText,
  /** Who inside the tenant (user id, …) for policies scoped per subject. */
  subject: safeText.optional(),
  /** The client's address, for policies scoped per IP (IPv6 counted per /64). */
  ip: ipSchema.optional(),
};

const oneTenant = (c: { tenant?: string; key?: string }) => (c.tenant === undefined) !== (c.key === undefined);
const oneTenantIssue = { message: 'give either tenant or key', path: ['tenant'] };
const cost = z.int('must be a whole number').min(1, 'must be at least 1').max(MAX_COST, `must be at most ${MAX_COST}`);

/** Body of `POST /v1/check` (also `/v1/check/peek` and `/v1/check/refund`). Unknown fields are refused so that typos never pass silently. */
export const checkRequestSchema = z.strictObject({ ...checkFields, cost: cost.default(1) }).refine(oneTenant, oneTenantIssue);
export type CheckRequest = z.infer<typeof checkRequestSchema>;

/** Body of `POST /v1/check/lease`: take up to `max` units at once, to spend locally. */
export const leaseRequestSchema = z.strictObject({ ...checkFields, max: cost }).refine(oneTenant, { ...oneTenantIssue });
export type LeaseRequest = z.infer<typeof leaseRequestSchema>;

/** Body of `POST /v1/check/batch`: several checks, each decided on its own (atomically), answered in order. */
export const batchCheckRequestSchema = z.strictObject({
  checks: z.array(z.unknown()).min(1, 'must hold at least one check').max(MAX_BATCH_CHECKS, `must hold at most ${MAX_BATCH_CHECKS} checks`),
});

export type EnforcementMode = 'enforce' | 'shadow';

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
  /** Why a request is denied without counting, e.g. `tenant_suspended`, `key_revoked`. */
  reason?: string;
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
