import { z } from 'zod';
import { instant } from './answers';
import { freeText } from './text';
import { patchSchema } from './validation';

/**
 * Alert rules and alerts (docs/adr/0018-alerts.md): what an operator asks to be told about, and what was told. The API
 * validates rules with these schemas, the worker reads a stored rule's `params` back through them (a row written by
 * hand or by an older Tollgate is skipped, never half-read), and the answers are typed and documented by the views.
 */

export const ALERT_KINDS = ['quota_threshold', 'denied_rate', 'platform_degraded'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export const ALERT_STATES = ['pending', 'firing', 'resolved'] as const;
export type AlertState = (typeof ALERT_STATES)[number];

/** Percentages of a limit's capacity; a threshold of 100 is the quota exhausted. */
export const DEFAULT_QUOTA_THRESHOLDS: readonly number[] = [80, 100];

/**
 * How long after a notification an alert that keeps firing may notify again (Alertmanager's `repeat_interval`): a
 * quota rule on a per-minute limit tells of a tenant and limit at most hourly, however many minutes cross again.
 */
export const DEFAULT_REPEAT_INTERVAL_MINUTES = 60;
/** A week: the longest repeat interval (and the longest silence). */
export const MAX_REPEAT_INTERVAL_MINUTES = 7 * 24 * 60;

/** Kinds about the platform as a whole: they apply to everything, never to a plan or a tenant. */
export const PLATFORM_ALERT_KINDS: readonly AlertKind[] = ['platform_degraded'];

const thresholds = z
  .array(z.int('must be whole percentages').min(1, 'must be at least 1').max(100, 'must be at most 100'))
  .min(1, 'needs at least one threshold')
  .max(10, 'at most 10 thresholds')
  .refine((ts) => new Set(ts).size === ts.length, 'thresholds must differ')
  .transform((ts) => [...ts].sort((a, b) => a - b));

/**
 * A limit of a tenant reaches `thresholds` % of its capacity in a window. `limit`: a limit's name as checks answer it
 * (a tenant's own limit, or `<policy>-<limit>` of a policy counted per tenant); null: every daily quota (a fixed window
 * of a calendar day, or of 86,400 s). Fires once per threshold per window; `notifyReset` also sends
 * `quota.window_reset` when a window in which thresholds were crossed ends.
 */
export const quotaThresholdParamsSchema = z.strictObject({
  limit: z
    .string()
    .regex(/^[a-z][a-z0-9_-]{0,64}$/, "must be a limit's name as checks answer it (lower-case letters, digits, _ or -)")
    .nullable()
    .default(null),
  thresholds: thresholds.default([...DEFAULT_QUOTA_THRESHOLDS]),
  notifyReset: z.boolean().default(false),
});
export type QuotaThresholdParams = z.infer<typeof quotaThresholdParamsSchema>;

/**
 * A tenant's share of denied decisions (429s by a limit) is above `ratePercent` over the last `windowMinutes`, with at
 * least `minDecisions` decisions in them: pending, then firing once it has held for `pendingMinutes`; resolved once it
 * has stayed below for `holdMinutes` (a rate that dips and comes back meanwhile stays the same alert).
 */
export const deniedRateParamsSchema = z.strictObject({
  ratePercent: z.number().gt(0, 'must be above 0').max(100, 'must be at most 100'),
  windowMinutes: z.int('must be whole minutes').min(1, 'must be at least 1').max(60, 'must be at most 60').default(5),
  minDecisions: z.int('must be a whole number').min(1, 'must be at least 1').max(1_000_000_000).default(100),
  pendingMinutes: z.int('must be whole minutes').min(0).max(60, 'must be at most 60').default(1),
  holdMinutes: z.int('must be whole minutes').min(0).max(1440, 'must be at most 1440').default(5),
});
export type DeniedRateParams = z.infer<typeof deniedRateParamsSchema>;

/**
 * Decisions made by a failure mode (Redis did not decide) for longer than `forSeconds`, as usage counts them
 * (`degraded_allowed`, `degraded_denied`); resolved once none have been counted for `holdMinutes`.
 */
export const platformDegradedParamsSchema = z.strictObject({
  forSeconds: z.int('must be whole seconds').min(0).max(3600, 'must be at most 3600').default(60),
  holdMinutes: z.int('must be whole minutes').min(0).max(1440, 'must be at most 1440').default(2),
});
export type PlatformDegradedParams = z.infer<typeof platformDegradedParamsSchema>;

export const ALERT_PARAMS_SCHEMAS = {
  quota_threshold: quotaThresholdParamsSchema,
  denied_rate: deniedRateParamsSchema,
  platform_degraded: platformDegradedParamsSchema,
} as const satisfies Record<AlertKind, z.ZodType>;

export type AlertParams = { quota_threshold: QuotaThresholdParams; denied_rate: DeniedRateParams; platform_degraded: PlatformDegradedParams };

const scopeFields = {
  /** The rule watches the tenants of this plan (then no tenantId). */
  planId: z.uuid('must be a plan id').nullable().default(null),
  /** The rule watches this tenant alone (then no planId). Neither: every tenant, or the platform. */
  tenantId: z.uuid('must be a tenant id').nullable().default(null),
};

const ruleName = freeText(100);

const repeatIntervalMinutes = z
  .int('must be whole minutes')
  .min(1, 'must be at least 1')
  .max(MAX_REPEAT_INTERVAL_MINUTES, `must be at most ${MAX_REPEAT_INTERVAL_MINUTES} (a week)`);

/** A new alert rule: `params` as its kind says (each with defaults; `{}` takes them all, where the kind has no required field). */
export const newAlertRuleSchema = z
  .strictObject({
    name: ruleName,
    kind: z.enum(ALERT_KINDS, `must be one of ${ALERT_KINDS.join(', ')}`),
    ...scopeFields,
    enabled: z.boolean().default(true),
    params: z.record(z.string(), z.unknown()).default({}),
    repeatIntervalMinutes: repeatIntervalMinutes.default(DEFAULT_REPEAT_INTERVAL_MINUTES),
  })
  .superRefine((rule, ctx) => scopeProblems(rule, ctx))
  .transform((rule, ctx) => {
    const params = parseParams(rule.kind, rule.params, ctx);
    return { ...rule, params: params ?? {} };
  });
export type NewAlertRule = z.infer<typeof newAlertRuleSchema>;

/** A change of a rule: its name, whether it is enabled, its params (whole, as for a new rule of its kind), its repeat interval. Kind and scope never change. */
export const alertRulePatchSchema = patchSchema({ name: ruleName, enabled: z.boolean(), params: z.record(z.string(), z.unknown()), repeatIntervalMinutes });
export type AlertRulePatch = z.infer<typeof alertRulePatchSchema>;

function scopeProblems(rule: { kind: AlertKind; planId: string | null; tenantId: string | null }, ctx: z.RefinementCtx): void {
  if (rule.planId && rule.tenantId) ctx.addIssue({ code: 'custom', path: ['tenantId'], message: 'a rule is for a plan or for a tenant, not both' });
  if (PLATFORM_ALERT_KINDS.includes(rule.kind) && (rule.planId || rule.tenantId)) {
    ctx.addIssue({ code: 'custom', path: [rule.planId ? 'planId' : 'tenantId'], message: `a ${rule.kind} rule is about the platform: it has no plan or tenant` });
  }
}

/** `params` validated for `kind`, each issue reported under `params.<field>`; null when refused. */
export function parseParams(kind: AlertKind, params: unknown, ctx: z.RefinementCtx): Record<string, unknown> | null {
  const parsed = ALERT_PARAMS_SCHEMAS[kind].safeParse(params);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: ['params', ...issue.path.map(String)], message: issue.message });
  return null;
}

/** A stored rule's params, or null when they are not (any longer) valid for its kind. */
export function storedParams<K extends AlertKind>(kind: K, params: unknown): AlertParams[K] | null {
  const parsed = ALERT_PARAMS_SCHEMAS[kind].safeParse(params);
  return parsed.success ? (parsed.data as AlertParams[K]) : null;
}

/**
 * A silence of a rule: none of its alerts notifies before `until` (they are still recorded, and a quota's crossings
 * still counted); who set it and why. At most a week ahead; a new silence replaces the old one.
 */
export const alertSilenceSchema = z.strictObject({
  until: z.iso
    .datetime({ offset: true, error: 'must be an ISO 8601 time with its zone (2026-12-01T00:00:00Z)' })
    .transform((s) => new Date(s))
    .refine((d) => !Number.isNaN(d.getTime()), 'is not a time that exists'),
  reason: freeText(200).optional(),
});
export type AlertSilence = z.infer<typeof alertSilenceSchema>;

export const alertRuleViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(ALERT_KINDS),
  planId: z.string().nullable(),
  tenantId: z.string().nullable(),
  enabled: z.boolean(),
  params: z.record(z.string(), z.unknown()),
  repeatIntervalMinutes: z.int(),
  /** The silence in force (null: none, or it has ended). */
  silence: z.object({ until: instant, by: z.string(), reason: z.string().nullable() }).nullable(),
  createdAt: instant,
  updatedAt: instant,
});
export type AlertRuleView = z.infer<typeof alertRuleViewSchema>;
export const alertRuleListSchema = z.object({ items: z.array(alertRuleViewSchema) });

export const alertViewSchema = z.object({
  id: z.string(),
  ruleId: z.string().nullable(),
  kind: z.enum(ALERT_KINDS),
  tenantId: z.string().nullable(),
  state: z.enum(ALERT_STATES),
  limitName: z.string().nullable(),
  windowStart: instant.nullable(),
  windowEnd: instant.nullable(),
  startedAt: instant,
  firedAt: instant.nullable(),
  resolvedAt: instant.nullable(),
  details: z.record(z.string(), z.unknown()),
  /** The last notification (null: none yet, silenced or within the repeat interval) and how many were sent. */
  notifiedAt: instant.nullable(),
  notifications: z.int(),
  /** Seen by a person: it sends no repeat until it resolves. */
  acknowledgedAt: instant.nullable(),
  acknowledgedBy: z.string().nullable(),
});
export type AlertView = z.infer<typeof alertViewSchema>;
export const alertPageSchema = z.object({ items: z.array(alertViewSchema), nextCursor: z.string().nullable() });

/** What the navigation counts: alerts firing now, and those of them nobody has acknowledged. */
export const alertSummarySchema = z.object({ firing: z.int(), unacknowledged: z.int() });
export type AlertSummary = z.infer<typeof alertSummarySchema>;
