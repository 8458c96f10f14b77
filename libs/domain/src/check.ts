import { z } from 'zod';
import type { CheckRequest, LeaseRequest } from './check-contract';
import { MAX_BATCH_CHECKS } from './check-contract';
import { safeText, slug } from './text';

export const MAX_COST = 1_000_000;

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

/** Body of `POST /v1/check/lease`: take up to `max` units at once, to spend locally. */
export const leaseRequestSchema = z.strictObject({ ...checkFields, max: cost }).refine(oneTenant, { ...oneTenantIssue });

/** Body of `POST /v1/check/batch`: several checks, each decided on its own (atomically), answered in order. */
export const batchCheckRequestSchema = z.strictObject({
  checks: z.array(z.unknown()).min(1, 'must hold at least one check').max(MAX_BATCH_CHECKS, `must hold at most ${MAX_BATCH_CHECKS} checks`),
});

// The bodies these schemas parse to are exactly the plain types of check-contract.ts, which the SDK ships to its
// users: a schema that drifts from them (a field added, renamed or retyped on one side only) fails the type check here.
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Holds<T extends true> = T;
type _SchemasParseToTheContract = [
  Holds<Same<z.output<typeof checkRequestSchema>, CheckRequest>>,
  Holds<Same<z.output<typeof leaseRequestSchema>, LeaseRequest>>,
];
