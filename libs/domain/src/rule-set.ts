import { z } from 'zod';
import { limitSpecSchema } from './limits';
import { FAILURE_MODES, POLICY_METHODS, POLICY_MODES, policyNameSchema, routePatternSchema, SUBJECT_SCOPES } from './policies';
import { withExplicitCalendars } from './legacy-calendars';
import { withTenantIdScopes } from './legacy-scopes';
import { slug } from './text';

export const TENANT_STATUSES = ['active', 'suspended'] as const;
export type TenantStatus = (typeof TENANT_STATUSES)[number];

const compiledTenantSchema = z.object({
  id: z.string().min(1),
  slug,
  status: z.enum(TENANT_STATUSES),
  plan: slug,
  /** IANA zone whose midnight resets the tenant's daily limits (absent in versions compiled before it: UTC). */
  timeZone: z.string().min(1).default('UTC'),
  limits: z
    .array(limitSpecSchema)
    .refine((ls) => new Set(ls.map((l) => l.name)).size === ls.length, 'limit names must be unique'),
});

const compiledServiceKeySchema = z.object({
  id: z.string().min(1),
  prefix: z.string().min(1),
  /** SHA-256 of the whole key, hex. */
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  /** Ids of the tenants this key may check; null = every tenant, empty = none (its tenants were deleted). */
  tenantIds: z.array(z.string().min(1)).nullable(),
  expiresAt: z.string().datetime().nullable(),
});

/** A tenant's API key: what a check may carry instead of the tenant's slug. */
const compiledTenantKeySchema = z.object({
  id: z.string().min(1),
  prefix: z.string().min(1),
  /** SHA-256 of the whole key, hex. */
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  tenant: slug,
  expiresAt: z.string().datetime().nullable(),
});

/**
 * A revoked tenant key, kept so that a check with it is refused and counted under its tenant (not as a key of no one):
 * the `REVOKED_TENANT_KEYS_KEPT` most recently revoked, of tenants that still exist.
 */
const revokedTenantKeySchema = compiledTenantKeySchema.pick({ id: true, prefix: true, hash: true, tenant: true });

/** How many revoked tenant keys a rule set keeps (the most recently revoked): a bound on its size, whatever the history. */
export const REVOKED_TENANT_KEYS_KEPT = 1000;

const compiledPolicySchema = z.object({
  id: z.string().min(1),
  name: policyNameSchema,
  method: z.enum(POLICY_METHODS),
  pattern: routePatternSchema,
  cost: z.int().min(1),
  scope: z.enum(SUBJECT_SCOPES),
  mode: z.enum(POLICY_MODES),
  failureMode: z.enum(FAILURE_MODES),
  /** Present (true) only when set: a rule set without it is the same as before the setting existed. */
  replicaAck: z.literal(true).optional(),
  /** Present only for one quota across regions (`global`): a rule set without it is the same as before the setting existed. */
  regionScope: z.literal('global').optional(),
  limits: z
    .array(limitSpecSchema)
    .refine((ls) => new Set(ls.map((l) => l.name)).size === ls.length, 'limit names must be unique'),
});

/** One owner's policies keyed by route (`GET /v1/items/*`): a key is unique per owner. */
const policyTableSchema = z.record(z.string(), compiledPolicySchema);

/**
 * Endpoint policies by owner. A tenant's policies are its plan's plus its own; its own replaces the plan's of the
 * same route (docs/adr/0005-endpoint-policies.md). `policyMatcher` (libs/rules) indexes them for request time.
 */
const compiledPoliciesSchema = z.object({
  plans: z.record(slug, policyTableSchema),
  tenants: z.record(slug, policyTableSchema),
});

/** The highest rule set version there can be: versions are numbered in a Postgres `integer` column. */
export const MAX_RULE_VERSION = 2_147_483_647;

/** A version number in a query string (`?from=`, `?before=`): anything above `MAX_RULE_VERSION` names no version. */
export const ruleVersionQuery = z.coerce.number().int().min(1).max(MAX_RULE_VERSION, `must be at most ${MAX_RULE_VERSION}`);

/** The rules every API node enforces: compiled from Postgres, stored in Redis, swapped in memory. */
const ruleSetObjectSchema = z.object({
  version: z.int().min(1).max(MAX_RULE_VERSION),
  compiledAt: z.string().datetime(),
  /**
   * The installation (database) that committed it: stamped on the copy published to Redis, so that a node never
   * enforces another installation's rule set. Not part of what Postgres keeps of a version.
   */
  installation: z.string().min(1).optional(),
  /** Set from the version limits carry their calendar (absent before: see `withExplicitCalendars`). */
  explicitCalendars: z.literal(true).optional(),
  tenants: z.record(slug, compiledTenantSchema),
  serviceKeys: z.array(compiledServiceKeySchema),
  /** Live tenant keys (revoked ones are left out: a revocation is a new version). Absent in older versions. */
  tenantKeys: z.array(compiledTenantKeySchema).default([]),
  /** Recently revoked tenant keys (`revokedTenantKeySchema`). Absent in older versions. */
  revokedTenantKeys: z.array(revokedTenantKeySchema).default([]),
  // Absent in versions compiled before policies existed.
  policies: compiledPoliciesSchema.default({ plans: {}, tenants: {} }),
});

/**
 * A stored rule set (versions compiled when service keys named tenants by slug are read with their ids, those
 * compiled before calendars were explicit with their daily calendars).
 */
export const ruleSetSchema = z.preprocess((raw) => withExplicitCalendars(withTenantIdScopes(raw)), ruleSetObjectSchema);
/** A rule set before it is numbered, as the compiler makes it. */
export const ruleSetBodySchema = ruleSetObjectSchema.omit({ version: true, compiledAt: true });

export type RuleSet = z.infer<typeof ruleSetSchema>;
export type CompiledTenant = z.infer<typeof compiledTenantSchema>;
export type CompiledServiceKey = z.infer<typeof compiledServiceKeySchema>;
export type CompiledTenantKey = z.infer<typeof compiledTenantKeySchema>;
export type RevokedTenantKey = z.infer<typeof revokedTenantKeySchema>;
export type CompiledPolicy = z.infer<typeof compiledPolicySchema>;
export type CompiledPolicies = z.infer<typeof compiledPoliciesSchema>;
/** A rule set before it is numbered. */
export type RuleSetBody = Omit<RuleSet, 'version' | 'compiledAt' | 'installation'>;
