import { CALENDARS, type FailureMode, type PolicyMethod, type PolicyMode, type SubjectScope } from '@tollgate/domain';
import { z } from 'zod';

/**
 * The parts of the Tollgate API's JSON that the dashboard reads. Responses are parsed with these schemas,
 * so a contract drift shows up as one clear error instead of `undefined` deep in a component.
 */

const id = z.union([z.string(), z.number()]).transform(String);

export const USER_ROLES = ['operator', 'tenant'] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** Who is signed in: an operator, or a tenant's user (who sees only `tenantId`'s own data). */
export const userSchema = z.object({
  id,
  email: z.string(),
  name: z.string(),
  role: z.enum(USER_ROLES),
  tenantId: z.string().nullable().default(null),
});
export type User = z.infer<typeof userSchema>;

/** A slug-named thing another one points at: a plan, a tenant. */
const namedRefSchema = z.object({ id, slug: z.string(), name: z.string() });

/** A dashboard account as the admin API lists it: never its password. */
export const accountSchema = z.object({
  id,
  email: z.string(),
  name: z.string(),
  role: z.enum(USER_ROLES),
  tenant: namedRefSchema.nullable(),
  createdAt: z.string(),
});
export type Account = z.infer<typeof accountSchema>;

export const accountPageSchema = z.object({ items: z.array(accountSchema), nextCursor: z.string().nullable() });
export type AccountPage = z.infer<typeof accountPageSchema>;

export const loginResponseSchema = z.object({
  token: z.string().min(1),
  expiresAt: z.string(),
  user: userSchema,
});
export type LoginResponse = z.infer<typeof loginResponseSchema>;

export const meResponseSchema = z.object({ user: userSchema });

export const planLimitSchema = z.object({
  id,
  name: z.string(),
  windowS: z.number(),
  limit: z.number(),
  algorithm: z.string(),
  /** Bucket capacity of a bucket algorithm; null means "the limit". */
  burst: z.number().nullable().default(null),
  /** The calendar a fixed window follows in the tenant's time zone; null = every `windowS` seconds. */
  calendar: z.enum(CALENDARS).nullable().optional(),
});
export type PlanLimit = z.infer<typeof planLimitSchema>;

export const planSchema = z.object({
  id,
  slug: z.string(),
  name: z.string(),
  tenantCount: z.number(),
  limits: z.array(planLimitSchema),
});
export type Plan = z.infer<typeof planSchema>;

export const planListSchema = z.object({ items: z.array(planSchema), nextCursor: z.string().nullable() });

export const updateLimitResponseSchema = z.object({
  limit: planLimitSchema,
  ruleVersion: z.number(),
});
export type UpdateLimitResponse = z.infer<typeof updateLimitResponseSchema>;

/** What every admin write answers (with the new thing, when there is one): the rule set version that carries it. */
export const ruleVersionResponseSchema = z.object({ ruleVersion: z.number() });
export type RuleVersionResponse = z.infer<typeof ruleVersionResponseSchema>;

export const planResponseSchema = z.object({ plan: planSchema, ruleVersion: z.number() });
export type PlanResponse = z.infer<typeof planResponseSchema>;

/** A tenant's own version of a limit: it replaces the plan's limit of the same name, or adds one. */
export const limitOverrideSchema = planLimitSchema.omit({ id: true });
export type LimitOverride = z.infer<typeof limitOverrideSchema>;

export const tenantSchema = z.object({
  id,
  slug: z.string(),
  name: z.string(),
  status: z.enum(['active', 'suspended']),
  timeZone: z.string(),
  plan: namedRefSchema,
  overrides: z.array(limitOverrideSchema).default([]),
});
export type Tenant = z.infer<typeof tenantSchema>;

export const tenantPageSchema = z.object({
  items: z.array(tenantSchema),
  nextCursor: z.string().nullable(),
});
export type TenantPage = z.infer<typeof tenantPageSchema>;

export const tenantResponseSchema = z.object({ tenant: tenantSchema, ruleVersion: z.number() });
export type TenantResponse = z.infer<typeof tenantResponseSchema>;

export const overrideResponseSchema = z.object({ override: limitOverrideSchema, ruleVersion: z.number() });
export type OverrideResponse = z.infer<typeof overrideResponseSchema>;

/** A tenant as its own users see it (`GET /v1/tenant`). */
export const ownTenantSchema = z.object({
  id,
  slug: z.string(),
  name: z.string(),
  status: z.enum(['active', 'suspended']),
  timeZone: z.string(),
  plan: z.object({ slug: z.string(), name: z.string() }),
});
export type OwnTenant = z.infer<typeof ownTenantSchema>;

/** A limit as the rule set holds it: no id, and `burst` only where it is set. */
const limitInForceSchema = z.object({
  name: z.string(),
  windowS: z.number(),
  limit: z.number(),
  algorithm: z.string(),
  burst: z.number().optional(),
  calendar: z.enum(CALENDARS).optional(),
});
export type LimitInForce = z.infer<typeof limitInForceSchema>;

export const POLICY_METHODS = ['*', 'GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const satisfies readonly PolicyMethod[];
export const POLICY_MODES = ['enforce', 'shadow', 'off'] as const satisfies readonly PolicyMode[];
export const FAILURE_MODES = ['open', 'closed', 'local'] as const satisfies readonly FailureMode[];
export const SUBJECT_SCOPES = ['tenant', 'subject', 'ip'] as const satisfies readonly SubjectScope[];

/** An endpoint policy: of a plan or of one tenant (exactly one of `plan` and `tenant`). */
export const policySchema = z.object({
  id,
  plan: namedRefSchema.nullable(),
  tenant: namedRefSchema.nullable(),
  name: z.string(),
  method: z.enum(POLICY_METHODS),
  pattern: z.string(),
  cost: z.number(),
  scope: z.enum(SUBJECT_SCOPES),
  mode: z.enum(POLICY_MODES),
  failureMode: z.enum(FAILURE_MODES),
  limits: z.array(planLimitSchema),
});
export type Policy = z.infer<typeof policySchema>;

export const policyPageSchema = z.object({ items: z.array(policySchema), nextCursor: z.string().nullable() });
export type PolicyPage = z.infer<typeof policyPageSchema>;

export const policyResponseSchema = z.object({ policy: policySchema, ruleVersion: z.number() });
export type PolicyResponse = z.infer<typeof policyResponseSchema>;

/** What a tenant is held to now (`GET /v1/tenant/limits`): its limits and policies in the rule set every node enforces. */
export const ownLimitsSchema = z.object({
  ruleVersion: z.number(),
  limits: z.array(limitInForceSchema),
  // A policy as the rule set holds it: its route (`GET /v1/items/*`), and no owner (it is the tenant's plan's, or its own).
  policies: z.array(policySchema.omit({ plan: true, tenant: true, limits: true }).extend({ route: z.string(), limits: z.array(limitInForceSchema) })),
});
export type OwnLimits = z.infer<typeof ownLimitsSchema>;
export type PolicyInForce = OwnLimits['policies'][number];

export const KEY_KINDS = ['service', 'tenant', 'operator'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

/** An API key as the admin API shows it: never its hash, never its secret (only its first characters). */
export const keySchema = z.object({
  id,
  kind: z.enum(KEY_KINDS),
  name: z.string(),
  prefix: z.string(),
  /** The tenant of a `tenant` key. */
  tenantId: z.string().nullable(),
  /** A `service` key that may check every tenant, those created later included. */
  allTenants: z.boolean(),
  /** The tenants a `service` key may check when not `allTenants`; empty: none (its tenants were deleted). */
  tenants: z.array(z.object({ id, slug: z.string(), name: z.string() })),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type ApiKey = z.infer<typeof keySchema>;

export const keyListSchema = z.object({ items: z.array(keySchema) });

/** A new or rotated key: `key` is its secret, in this answer only. */
export const keySecretResponseSchema = z.object({ key: z.string().min(1), apiKey: keySchema, ruleVersion: z.number() });
export type KeySecretResponse = z.infer<typeof keySecretResponseSchema>;

export const keyResponseSchema = z.object({ apiKey: keySchema, ruleVersion: z.number() });
export type KeyResponse = z.infer<typeof keyResponseSchema>;

export const ruleSetSummarySchema = z.object({
  version: z.number(),
  createdAt: z.string(),
  author: z.string(),
});
export type RuleSetSummary = z.infer<typeof ruleSetSummarySchema>;

/** One row of the version history: `changes` counts the leaf changes against the version before it. */
export const ruleSetVersionSummarySchema = ruleSetSummarySchema.extend({ changes: z.number() });
export type RuleSetVersionSummary = z.infer<typeof ruleSetVersionSummarySchema>;

export const ruleSetPageSchema = z.object({
  items: z.array(ruleSetVersionSummarySchema),
  nextBefore: z.number().nullable(),
});
export type RuleSetPage = z.infer<typeof ruleSetPageSchema>;

/** One leaf that differs: `before` is absent when it was added, `after` when it was removed. */
export const ruleSetChangeSchema = z.object({
  path: z.string(),
  before: z.unknown().optional(),
  after: z.unknown().optional(),
});
export type RuleSetChange = z.infer<typeof ruleSetChangeSchema>;

/** One version; its `compiled` rule set is not read by the dashboard. */
export const ruleSetVersionSchema = ruleSetSummarySchema.extend({ diff: z.array(ruleSetChangeSchema) });
export type RuleSetVersion = z.infer<typeof ruleSetVersionSchema>;

export const ruleSetDiffSchema = z.object({
  from: z.number(),
  to: z.number(),
  changes: z.array(ruleSetChangeSchema),
});
export type RuleSetDiff = z.infer<typeof ruleSetDiffSchema>;

export const restoreRuleSetResponseSchema = z.object({
  ruleVersion: z.number(),
  restoredFrom: z.number(),
});
export type RestoreRuleSetResponse = z.infer<typeof restoreRuleSetResponseSchema>;

export const errorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    field: z.string().optional(),
  }),
});
