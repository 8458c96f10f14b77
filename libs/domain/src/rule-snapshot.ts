import { z } from 'zod';
import { ALGORITHMS, CALENDARS, legacyCalendar } from './limits';
import { FAILURE_MODES, POLICY_MODES, REGION_SCOPES, SUBJECT_SCOPES } from './policies';

const limitFields = {
  name: z.string(),
  windowS: z.number(),
  limit: z.number(),
  algorithm: z.enum(ALGORITHMS),
  burst: z.number().nullable(),
  // Absent in snapshots taken before calendars were explicit: a fixed window of a day followed the calendar day.
  calendar: z.enum(CALENDARS).nullable().optional(),
};
const withCalendar = <T extends { windowS: number; algorithm: string; calendar?: (typeof CALENDARS)[number] | null }>(l: T) => ({
  ...l,
  calendar: l.calendar === undefined ? legacyCalendar(l) : l.calendar,
});
const limitSchema = z.object({ id: z.string(), ...limitFields }).transform(withCalendar);

const policySchema = z.object({
  id: z.string(),
  planId: z.string().nullable(),
  tenantId: z.string().nullable(),
  name: z.string(),
  method: z.string(),
  pattern: z.string(),
  cost: z.number(),
  scope: z.enum(SUBJECT_SCOPES),
  mode: z.enum(POLICY_MODES),
  failureMode: z.enum(FAILURE_MODES),
  // Versions saved before the setting existed restore without it.
  replicaAck: z.boolean().default(false),
  regionScope: z.enum(REGION_SCOPES).default('region'),
  limits: z.array(limitSchema),
});

/**
 * What a rule set version can be restored to: plans with their limits, each tenant's plan, status and
 * limit overrides, and the endpoint policies of plans and tenants.
 * Keys are deliberately not part of it: restoring a version never brings a revoked key back.
 */
const snapshotSchema = z.object({
  plans: z.array(
    z.object({
      id: z.string(),
      slug: z.string(),
      name: z.string(),
      limits: z.array(limitSchema),
    }),
  ),
  tenants: z.array(
    z.object({
      id: z.string(),
      planId: z.string(),
      status: z.enum(['active', 'suspended']),
      // Absent in snapshots taken before overrides existed: restoring those leaves overrides as they are.
      overrides: z
        .array(z.object(limitFields).transform(withCalendar))
        .optional(),
    }),
  ),
  // Absent in snapshots taken before policies existed: restoring those leaves policies as they are.
  policies: z.array(policySchema).optional(),
});
export type RuleSnapshot = z.infer<typeof snapshotSchema>;

export function parseSnapshot(raw: unknown): RuleSnapshot | null {
  if (raw === null || raw === undefined) return null;
  const parsed = snapshotSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}
