import { z } from 'zod';
import { instant, liveLimitSchema, namedRefSchema } from './answers';

/**
 * What the API's usage reads answer (`/v1/admin/usage…`, `/v1/tenant/usage…`, the list pages' batched reads), as zod
 * schemas, like answers.ts: the views are typed by them, the dashboard parses with them, the OpenAPI document says them.
 */

/** The granularities of usage: the rollup tables' buckets (UTC minutes and hours; calendar days). */
export const USAGE_STEPS = ['minute', 'hour', 'day'] as const;

/** An endpoint policy as usage names it. */
export const usagePolicyRefSchema = z.object({ id: z.string(), name: z.string(), method: z.string(), pattern: z.string() });

/** Decisions of one bucket of usage, by result, and the units charged. */
export const usagePointSchema = z.object({
  at: instant.describe("the bucket's start"),
  allowed: z.int(),
  denied: z.int().describe('refused by a limit (429)'),
  shadowDenied: z.int().describe('admitted, but a policy in shadow mode would have refused'),
  degraded: z.int().describe('decided without Redis by the failure mode (allowed or denied)'),
  refused: z.int().describe('no decision: no, unknown, revoked or expired key, suspended tenant, tenant not allowed (REFUSAL_REASONS)'),
  cost: z.int().describe('units charged'),
});

/** The refused checks of a range with one reason (`key_invalid`, `tenant_not_allowed`, …). */
export const refusedReasonSchema = z.object({
  reason: z.string().describe('why they were refused, as the check answered (REFUSAL_REASONS, or `key_missing` from forward-auth)'),
  checks: z.int(),
});

/**
 * Usage over a range (`GET /v1/admin/usage`, `GET /v1/tenant/usage`): one point per bucket, zeros where nothing was
 * counted. The step follows the range's length (minute up to 6 hours, hour up to 14 days, day beyond) and what is
 * still kept (minutes 7 days, hours 90 days, days 400 days).
 */
export const usageSeriesSchema = z.object({
  from: instant,
  to: instant,
  step: z.enum(USAGE_STEPS),
  timeZone: z
    .string()
    .describe("the zone of the days: the tenant's when one tenant is asked for, UTC otherwise (then a day sums each tenant's own calendar day of that date)"),
  tenant: namedRefSchema.nullable(),
  policy: usagePolicyRefSchema.nullable(),
  result: z.string().nullable().describe('the one result counted, or null for all'),
  points: z.array(usagePointSchema),
  refusedByReason: z
    .array(refusedReasonSchema)
    .describe("the range's refused checks by reason, most first: without a tenant, those of every tenant and of keys of no one"),
});
export type UsageSeries = z.infer<typeof usageSeriesSchema>;

/** One entry of a top-N of usage: a tenant, an endpoint policy (over every tenant), or a limit that denied. */
export const usageTopEntrySchema = z.object({
  tenantId: z.string().nullable(),
  tenant: namedRefSchema.nullable().describe('null when there is none, or it was deleted since'),
  policyId: z.string().nullable(),
  policy: usagePolicyRefSchema.nullable().describe('null when there is none, or it was deleted since'),
  limit: z.string().nullable().describe("the limit's name (by=limits)"),
  decisions: z.int(),
  denied: z.int(),
  denyRate: z.number().describe('denied / decisions'),
  cost: z.int(),
  refused: z.int().describe('checks refused without a decision (by=tenants; null tenant: keys of no one); 0 for policies and limits'),
});
export const usageTopSchema = z.object({
  by: z.enum(['tenants', 'policies', 'limits']),
  metric: z.enum(['denied', 'deny_rate', 'cost', 'refused']),
  from: instant,
  to: instant,
  step: z.enum(USAGE_STEPS),
  minDecisions: z.int().describe('deny_rate ranks only entries with at least this many decisions'),
  items: z.array(usageTopEntrySchema),
});
export type UsageTop = z.infer<typeof usageTopSchema>;

/** The decisions of one tenant or endpoint policy over a range (`GET /v1/admin/usage/summary`). */
export const usageSummaryEntrySchema = z.object({
  id: z.string().describe('the tenant or endpoint policy id, as asked'),
  decisions: z.int(),
  denied: z.int().describe('refused by a limit (429)'),
  denyRate: z.number().nullable().describe('denied / decisions; null without decisions'),
  shadowDenied: z.int().describe('admitted, but a policy in shadow mode would have refused'),
});
export const usageSummarySchema = z.object({
  by: z.enum(['tenants', 'policies']),
  from: instant,
  to: instant,
  step: z.enum(USAGE_STEPS),
  items: z.array(usageSummaryEntrySchema).describe('one per id asked, in the order asked (zeros for one without decisions)'),
});
export type UsageSummary = z.infer<typeof usageSummarySchema>;

/** The most used of a tenant's own limits now (`GET /v1/admin/tenants/limits-used`). */
export const limitsUsedEntrySchema = z.object({
  tenantId: z.string(),
  limits: z.int().describe("how many limits of the tenant's own it has in force"),
  mostUsed: liveLimitSchema
    .extend({ share: z.number().describe('used / limit, 0 to 1') })
    .nullable()
    .describe('the limit with the highest share used now; null without limits, or when Redis did not answer'),
});
export const limitsUsedSchema = z.object({
  live: z.boolean().describe('false when Redis did not answer: no state now is known'),
  items: z.array(limitsUsedEntrySchema).describe('one per tenant asked that exists, in the order asked'),
});
export type LimitsUsed = z.infer<typeof limitsUsedSchema>;

/** How many tenants of each plan are at one of their limits now (`GET /v1/admin/plans/at-limit`). */
export const plansAtLimitSchema = z.object({
  live: z.boolean().describe('false when Redis did not answer: no state now is known'),
  items: z
    .array(
      z.object({
        planId: z.string(),
        tenants: z.int().describe('tenants on the plan'),
        checked: z.int().describe('tenants whose limits were read: all of them, or the first ones by slug past the most one read reads'),
        atLimit: z.int().describe('of those checked, the tenants with a limit that would refuse a request of cost 1 now'),
      }),
    )
    .describe('one per plan asked that exists, in the order asked'),
});
export type PlansAtLimit = z.infer<typeof plansAtLimitSchema>;

/** One route of usage (`GET /v1/admin/usage/routes`, `GET /v1/tenant/usage/routes`): its decisions, and the limits that denied it. */
export const usageRouteSchema = z.object({
  route: z.string().describe("`METHOD /path` as checks named it (the method in capitals, no query, no empty segments), or `other`: the routes past a tenant's cap of a minute, and endpoints that name no route"),
  decisions: z.int(),
  allowed: z.int(),
  denied: z.int().describe('refused by a limit (429)'),
  shadowDenied: z.int().describe('admitted, but a policy in shadow mode would have refused'),
  degraded: z.int().describe('decided without Redis by the failure mode (allowed or denied)'),
  refused: z.int().describe('no decision: invalid or expired key, suspended tenant'),
  denyRate: z.number().describe('denied / decisions'),
  limits: z
    .array(z.object({ name: z.string(), denied: z.int(), shadowDenied: z.int() }))
    .describe('the limits that refused the route (or would have, in shadow mode), most first: route × limit'),
});
/**
 * The routes that lead a range, whether or not an endpoint policy matched them: by 429 rate or by volume, of one tenant
 * or of every tenant. Read by the minute up to 6 hours, by the hour beyond (routes are kept per minute and hour).
 */
export const usageRoutesSchema = z.object({
  order: z.enum(['deny_rate', 'decisions']),
  from: instant,
  to: instant,
  step: z.enum(USAGE_STEPS),
  tenant: namedRefSchema.nullable().describe('the tenant asked about; null: every tenant'),
  minDecisions: z.int().describe('deny_rate ranks only routes with at least this many decisions'),
  routesPerTenantMinute: z.int().describe('the most routes counted under their own name per tenant and minute (USAGE_ROUTES_PER_TENANT_MINUTE); the rest are `other`'),
  items: z.array(usageRouteSchema),
});
export type UsageRoutes = z.infer<typeof usageRoutesSchema>;

/** One sampled denial (or shadow would-deny) of a tenant. */
export const denialSampleSchema = z.object({
  id: z.string(),
  at: instant,
  policyId: z.string().nullable(),
  policy: usagePolicyRefSchema.nullable(),
  endpoint: z.string(),
  subject: z.string(),
  limit: z.string().describe('the limit that refused'),
  remaining: z.number(),
  result: z.enum(['denied', 'shadow_denied']),
});
/**
 * A tenant's recent denials, newest first. A sample (at most a few a second per tenant and node, about the last
 * thousand): the exact counts are in the usage series.
 */
export const denialSamplesSchema = z.object({
  sampled: z.literal(true).describe('always true: these are a sample, not every denial'),
  tenant: namedRefSchema,
  items: z.array(denialSampleSchema),
});
export type DenialSamples = z.infer<typeof denialSamplesSchema>;

/** A subject that an endpoint policy in shadow mode would have denied, as the sampled would-denies name it. */
export const wouldDenySubjectSchema = z.object({
  subject: z.string().describe("who the request was for, as the check named it ('' when it named none)"),
  tenant: namedRefSchema.nullable().describe('null when the tenant was deleted since'),
  samples: z.int().describe('its sampled would-denies in the range: a sample, not every one'),
  lastAt: instant.describe('the newest of them'),
});

/**
 * What enforcing an endpoint policy would have refused over a range (`GET /v1/admin/usage/would-deny`): the exact
 * count of its would-denies (shadow mode) as rolled up, and the subjects of the sampled ones. A policy in enforce
 * mode has none (its refusals are `denied` in the usage series).
 */
export const wouldDenySchema = z.object({
  policy: usagePolicyRefSchema,
  from: instant,
  to: instant,
  step: z.enum(USAGE_STEPS),
  countedFrom: instant.describe("the start of the first bucket read: an hour's or a day's rows hold the whole of it"),
  countedTo: instant.describe('up to when the rollup holds every would-deny (at most `to`); the subjects are sampled over the same time'),
  shadowDenied: z.int().describe('exact: the would-denies counted in the range (the buckets that overlap it, as far as the worker has rolled them up)'),
  tenants: z.int().describe('how many tenants had would-denies in the range'),
  sampled: z.literal(true).describe('always true: the subjects are from a sample of the would-denies, not every one'),
  tenantsSampled: z.int().describe("whose samples were read: the tenants with the most would-denies, at most 20"),
  subjects: z.array(wouldDenySubjectSchema).describe('most samples first'),
});
export type WouldDeny = z.infer<typeof wouldDenySchema>;
