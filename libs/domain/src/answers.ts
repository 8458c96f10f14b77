import { z } from 'zod';
import { REFUSAL_REASONS, type CheckResult, type LeaseResult, type LimitState, type RefusalReason } from './check-contract';
import { ErrorCode, errorHttpStatus, type ErrorBody } from './errors';
import { limitInputFields, limitNameSchema, limitSpecSchema } from './limits';
import { FAILURE_MODES, POLICY_METHODS, POLICY_MODES, REGION_SCOPES, SUBJECT_SCOPES } from './policies';
import { TENANT_STATUSES } from './rule-set';
import { tenantCapsSchema } from './tenant-caps';

/**
 * What the API answers, as zod schemas: the API's views are typed by them (a view that drifts fails its type
 * check), the dashboard parses every answer with them, and the OpenAPI document describes every answer from them.
 */

/** A time as JSON carries it (`Date.toISOString()`). */
export const instant = z.string();

/** A plan or a tenant as another thing names it. */
export const namedRefSchema = z.object({ id: z.string(), slug: z.string(), name: z.string() });

/** Every list's page size (`?pageSize=`): one default and one maximum for all of them. */
export const PAGE_SIZE = Object.freeze({ default: 50, max: 200 });

/** A page of a list: `nextCursor` asks for the next page (`?cursor=`) and is null on the last one. */
export const pageSchema = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextCursor: z.string().nullable() });

/** A limit as the admin API shows it (plan and policy limits): every field with its id; `burst` and `calendar` null where unset. */
export const limitViewSchema = z.object({ id: z.string(), name: limitNameSchema, ...limitInputFields });
export type LimitView = z.infer<typeof limitViewSchema>;

export const planViewSchema = z.object({ id: z.string(), slug: z.string(), name: z.string(), tenantCount: z.int(), limits: z.array(limitViewSchema) });
export type PlanView = z.infer<typeof planViewSchema>;

/** A tenant's own version of a limit: replaces its plan's limit of that name, or adds one. */
export const overrideViewSchema = limitViewSchema.omit({ id: true });
export type OverrideView = z.infer<typeof overrideViewSchema>;

export const tenantViewSchema = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  status: z.enum(TENANT_STATUSES),
  timeZone: z.string(),
  plan: namedRefSchema,
  overrides: z.array(overrideViewSchema),
  /** Its own caps on what its users can make (null: the installation's default); GET …/caps has them with what is used. */
  caps: tenantCapsSchema,
});
export type TenantView = z.infer<typeof tenantViewSchema>;

/** An endpoint policy: exactly one of `plan` and `tenant` is set. */
export const policyViewSchema = z.object({
  id: z.string(),
  plan: namedRefSchema.nullable(),
  tenant: namedRefSchema.nullable(),
  name: z.string(),
  method: z.enum(POLICY_METHODS),
  pattern: z.string(),
  cost: z.int(),
  scope: z.enum(SUBJECT_SCOPES),
  mode: z.enum(POLICY_MODES),
  failureMode: z.enum(FAILURE_MODES),
  /** A check is answered from Redis only once a replica holds its writes (`WAIT`), else by the failure mode. */
  replicaAck: z.boolean(),
  /** The quota holds in each region on its own (`region`), or once across every region (`global`: fixed windows only). */
  regionScope: z.enum(REGION_SCOPES),
  limits: z.array(limitViewSchema),
});
export type PolicyView = z.infer<typeof policyViewSchema>;

export const KEY_KINDS = ['service', 'tenant', 'operator'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

/** An API key: never its hash, never its secret (only its first characters). */
export const keyViewSchema = z.object({
  id: z.string(),
  kind: z.enum(KEY_KINDS),
  name: z.string(),
  prefix: z.string(),
  /** The tenant of a `tenant` key. */
  tenantId: z.string().nullable(),
  /** A `service` key that may check every tenant, those created later included. */
  allTenants: z.boolean(),
  /** The tenants a `service` key may check when not `allTenants`, by slug; empty: none (they were deleted). */
  tenants: z.array(namedRefSchema),
  expiresAt: instant.nullable(),
  revokedAt: instant.nullable(),
  lastUsedAt: instant.nullable(),
  createdAt: instant,
});
export type KeyView = z.infer<typeof keyViewSchema>;

/** Calls made with a key over a period: decisions (denied among them), and peeks and refunds (`other`). */
export const keyCallsSchema = z.object({ decisions: z.number().int(), denied: z.number().int(), other: z.number().int() });
export type KeyCalls = z.infer<typeof keyCallsSchema>;

/**
 * A key as lists and reads show it: with its calls over the last 24 hours and 30 days, from the usage rollup (whole
 * hours, so up to a few minutes behind; nothing while usage counting is off).
 */
export const keyWithUsageSchema = keyViewSchema.extend({ usage: z.object({ last24h: keyCallsSchema, last30d: keyCallsSchema }) });
export type KeyWithUsage = z.infer<typeof keyWithUsageSchema>;

export const USER_ROLES = ['operator', 'tenant'] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** A dashboard account as the admin API lists it: never its password. */
export const userViewSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(USER_ROLES),
  tenant: namedRefSchema.nullable(),
  createdAt: instant,
});
export type UserView = z.infer<typeof userViewSchema>;

/** Who is signed in: an operator, or a tenant's user (who sees only `tenantId`'s own data). */
export const sessionUserSchema = z.object({ id: z.string(), email: z.string(), name: z.string(), role: z.enum(USER_ROLES), tenantId: z.string().nullable() });
export type SessionUser = z.infer<typeof sessionUserSchema>;
export const loginAnswerSchema = z.object({ token: z.string().min(1), expiresAt: instant, user: sessionUserSchema });
export const meAnswerSchema = z.object({ user: sessionUserSchema });

const ruleVersion = z.int();
/** What an admin write answers: the rule set version that carries the change (a delete answers only this). */
export const ruleVersionAnswerSchema = z.object({ ruleVersion });
export const planAnswerSchema = z.object({ plan: planViewSchema, ruleVersion });
export const limitAnswerSchema = z.object({ limit: limitViewSchema, ruleVersion });
export const tenantAnswerSchema = z.object({ tenant: tenantViewSchema, ruleVersion });
export const overrideAnswerSchema = z.object({ override: overrideViewSchema, ruleVersion });
export const policyAnswerSchema = z.object({ policy: policyViewSchema, ruleVersion });
export const keyAnswerSchema = z.object({ apiKey: keyViewSchema, ruleVersion });
/** A new key: `key` is its secret, in this answer only. */
export const keySecretAnswerSchema = z.object({ key: z.string().min(1), apiKey: keyViewSchema, ruleVersion });
/** A rotated key: its new secret, and the key it replaces (expiring when the overlap ends). */
export const keyRotationAnswerSchema = keySecretAnswerSchema.extend({ previous: keyViewSchema });

export const planPageSchema = pageSchema(planViewSchema);
export const tenantPageSchema = pageSchema(tenantViewSchema);
export const policyPageSchema = pageSchema(policyViewSchema);
export const keyPageSchema = pageSchema(keyWithUsageSchema);
export const userPageSchema = pageSchema(userViewSchema);
/** A tenant's own keys: every one of them, no pages. */
export const keyListSchema = z.object({ items: z.array(keyWithUsageSchema) });

export const ruleSetSummarySchema = z.object({ version: ruleVersion, createdAt: instant, author: z.string() });
export type RuleSetSummary = z.infer<typeof ruleSetSummarySchema>;
/**
 * One change between two rule sets, as one line (`starter: minute 10 → 20`, `tenant acme moved to plan pro`,
 * `1 key of acme revoked`): what a plan, a tenant, an endpoint policy or the keys gained or lost. `rule_set` is a
 * change no line names otherwise (a new format), said by its path. Keys are counted, never shown by hash.
 */
export const RULE_SET_CHANGE_KINDS = ['plan', 'tenant', 'policy', 'key', 'rule_set'] as const;
export const ruleSetChangeSchema = z.object({ kind: z.enum(RULE_SET_CHANGE_KINDS), text: z.string() });
export type RuleSetChange = z.infer<typeof ruleSetChangeSchema>;
/** The changes in one line: the only one, the first "(and N more changes)", or "no change to enforcement". */
const summary = z.string();
/**
 * One row of the version history: `changes` counts the changes against the version before it, the very lines that
 * version's own answer and the diff of the two list.
 */
export const ruleSetVersionSummarySchema = ruleSetSummarySchema.extend({ changes: z.int(), summary });
export type RuleSetVersionSummary = z.infer<typeof ruleSetVersionSummarySchema>;
/** Versions, newest first: `nextBefore` asks for the next page (`?before=`) and is null on the last one. */
export const ruleSetPageSchema = z.object({ items: z.array(ruleSetVersionSummarySchema), nextBefore: ruleVersion.nullable() });
/**
 * One version: its changes against the version before it, its compiled rule set (keys by id and prefix, never by
 * hash) and what it was compiled from (plans with their limits, tenants' plans, statuses and overrides, policies:
 * `RuleSnapshot`; null for versions written before versions kept it).
 */
export const ruleSetVersionSchema = ruleSetSummarySchema.extend({ summary, changes: z.array(ruleSetChangeSchema), compiled: z.unknown(), source: z.unknown() });
export const ruleSetDiffSchema = z.object({ from: ruleVersion, to: ruleVersion, summary, changes: z.array(ruleSetChangeSchema) });
/**
 * A restore: the version it published (`published` false and `ruleVersion` the version in force when the rules were
 * already those of `restoredFrom`) and what it undid, the changes going from the rules in force back to it.
 */
export const restoreAnswerSchema = z.object({ ruleVersion, restoredFrom: ruleVersion, published: z.boolean(), summary, undoes: z.array(ruleSetChangeSchema) });
/** What restoring `version` would undo now, against `current` (the version in force); nothing is written. */
export const restorePreviewSchema = z.object({ version: ruleVersion, current: ruleVersion, summary, undoes: z.array(ruleSetChangeSchema) });

/**
 * One audit record: who (`actor`, `user:<e-mail>` or `key:<prefix>`) did what (`action`, `plan_limit.updated`) to
 * which resource (`entityType`, `entityId`), with the resource before and after (null where there is none; secrets
 * and hashes never: see the audit API), and the rule set version the change published (null: it published none).
 */
export const auditEntrySchema = z.object({
  id: z.string(),
  createdAt: instant,
  actor: z.string(),
  action: z.string(),
  entityType: z.string(),
  entityId: z.string(),
  before: z.unknown(),
  after: z.unknown(),
  ruleVersion: ruleVersion.nullable(),
});
export type AuditEntryView = z.infer<typeof auditEntrySchema>;
/** The audit log, newest first. */
export const auditPageSchema = pageSchema(auditEntrySchema);

/** A tenant as its own users see it (`GET /v1/tenant`). */
export const ownTenantSchema = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  status: z.enum(TENANT_STATUSES),
  timeZone: z.string(),
  plan: namedRefSchema.omit({ id: true }),
});
export type OwnTenant = z.infer<typeof ownTenantSchema>;

/** A policy as the rule set holds it: its route (`GET /v1/items/*`) and no owner (its plan's or the tenant's own). */
export const policyInForceSchema = policyViewSchema.omit({ plan: true, tenant: true, limits: true }).extend({ route: z.string(), limits: z.array(limitSpecSchema) });
/** What a tenant is held to now (`GET /v1/tenant/limits`): the limits and policies of the rule set every node enforces. */
export const ownLimitsSchema = z.object({ ruleVersion, limits: z.array(limitSpecSchema), policies: z.array(policyInForceSchema) });
export type OwnLimits = z.infer<typeof ownLimitsSchema>;

/**
 * The live state of one of a tenant's own limits, read from the limiter without charging anything. `used` and
 * `remaining` are units of its capacity (`burst` for buckets); `resetsAt` is when it is whole again (null: nothing used).
 */
export const liveLimitSchema = z.object({
  name: z.string(),
  limit: z.int().describe('capacity: the limit, or the burst of a bucket'),
  used: z.int(),
  remaining: z.int(),
  resetsAt: instant.nullable(),
});
export type LiveLimit = z.infer<typeof liveLimitSchema>;

/**
 * The limits and policies in force for a tenant, with the live state of its own limits (`GET /v1/tenant/limits`,
 * `GET /v1/admin/tenants/:tenantId/limits`).
 */
export const limitsInForceSchema = ownLimitsSchema.extend({
  live: z
    .array(liveLimitSchema)
    .nullable()
    .describe(
      "the state of each of the tenant's own limits now, counted for the tenant as a whole; an endpoint policy's limits count per tenant, subject or address and have no single state, so none is given for them. Null when Redis did not answer",
    ),
});
export type LimitsInForce = z.infer<typeof limitsInForceSchema>;


const limitStateSchema = z.object({ name: z.string(), limit: z.int(), remaining: z.int(), resetMs: z.number(), windowS: z.int() });

/** A decision (`POST /v1/check`, peek, refund): a denial is `allowed: false`, never an error. */
export const checkResultSchema = z.object({
  allowed: z.boolean(),
  mode: z.enum(['enforce', 'shadow']),
  wouldDeny: z.boolean().optional(),
  retryAfterMs: z.number(),
  delayMs: z.number().optional(),
  ruleVersion: z.int(),
  tenant: z.string().optional(),
  policy: z.string().optional(),
  limits: z.array(limitStateSchema),
  headers: z.record(z.string(), z.string()),
  reason: z.enum(REFUSAL_REASONS).optional().describe('why the check was refused before any limit was asked (`allowed: false`, nothing charged)'),
  degraded: z.boolean().optional(),
});
export const leaseResultSchema = checkResultSchema.extend({ granted: z.int() });
/** A decision as the API answers it (a CheckResult whose reason is one of REFUSAL_REASONS). */
export type CheckAnswer = z.output<typeof checkResultSchema>;
export type LeaseAnswer = z.output<typeof leaseResultSchema>;

const errorCodes = Object.values(ErrorCode) as [ErrorCode, ...ErrorCode[]];
const errorEnvelope = <C extends z.ZodType>(code: C) =>
  z.object({ error: z.object({ code, message: z.string(), field: z.string().optional().describe('the input field the error is about') }) });

/** The envelope of every error: `{ "error": { "code", "message", "field"? } }`. */
export const errorBodySchema = errorEnvelope(z.enum(errorCodes));

/** The envelope of the errors of one HTTP status: its codes only (errors.ts maps each code to its status). */
export function errorBodySchemaOf(status: number): z.ZodType<ErrorBody> {
  const codes = errorCodes.filter((code) => errorHttpStatus[code] === status);
  if (codes.length === 0) throw new Error(`no error code answers ${status}`);
  return errorEnvelope(z.enum(codes as [ErrorCode, ...ErrorCode[]]));
}

export const batchCheckResultSchema = z.object({ results: z.array(z.union([checkResultSchema, errorEnvelope(z.string())])) });

// The decisions these schemas describe are exactly the plain types of check-contract.ts, which the SDK ships: a
// field added, renamed or retyped on one side only fails the type check here (as check.ts does for the bodies).
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Holds<T extends true> = T;
// The API's reasons are REFUSAL_REASONS only: the contract's other one is the SDK's own fail-open pass.
type Answered<T> = { [K in keyof T]: K extends 'reason' ? RefusalReason | undefined : T[K] };
type _AnswersAreTheContract = [
  Holds<Same<z.output<typeof limitStateSchema>, LimitState>>,
  Holds<Same<z.output<typeof checkResultSchema>, Answered<CheckResult>>>,
  Holds<Same<z.output<typeof leaseResultSchema>, Answered<LeaseResult>>>,
  Holds<Same<z.output<typeof batchCheckResultSchema>, { results: (Answered<CheckResult> | { error: { code: string; message: string; field?: string } })[] }>>,
  Holds<Same<z.output<typeof errorBodySchema>, ErrorBody>>,
];
