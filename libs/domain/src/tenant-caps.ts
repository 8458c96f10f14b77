import { z } from 'zod';

/** The highest cap an operator may give a tenant: caps bound what one tenant can make the platform store and send. */
export const TENANT_CAP_MAX = 10_000;

/** What a tenant's caps bound: its webhook endpoints, and the alert rules about it. */
export const TENANT_CAP_KINDS = ['webhookEndpoints', 'alertRules'] as const;
export type TenantCapKind = (typeof TENANT_CAP_KINDS)[number];

const cap = z.int('must be a whole number').min(0, 'must be at least 0').max(TENANT_CAP_MAX, `must be at most ${TENANT_CAP_MAX}`);

/** A tenant's own caps: a number, or null for the installation's default (WEBHOOK_ENDPOINTS_PER_TENANT, ALERT_RULES_PER_TENANT). */
export const tenantCapsSchema = z.object({ webhookEndpoints: cap.nullable(), alertRules: cap.nullable() });
export type TenantCaps = z.infer<typeof tenantCapsSchema>;

/** A change of a tenant's caps: each given one is set (null: back to the default), the others stay. */
export const tenantCapsPatchSchema = z
  .strictObject({ webhookEndpoints: cap.nullable(), alertRules: cap.nullable() })
  .partial()
  .refine((p) => Object.keys(p).length > 0, 'give webhookEndpoints, alertRules or both');
export type TenantCapsPatch = z.infer<typeof tenantCapsPatchSchema>;

const capUsageSchema = z.object({
  used: z.int().describe('how many the tenant has now (more than the cap when a cap was lowered: none is taken away)'),
  cap: z.int().describe('the most it may have: its own cap, else the default'),
  own: z.int().nullable().describe("the tenant's own cap, set by an operator; null: none (the default applies)"),
  defaultCap: z.int().describe("the installation's default"),
});
export type TenantCapUsage = z.infer<typeof capUsageSchema>;

/** What a tenant has of each capped thing, against its cap. */
export const tenantCapsUsageSchema = z.object({ webhookEndpoints: capUsageSchema, alertRules: capUsageSchema });
export type TenantCapsUsage = z.infer<typeof tenantCapsUsageSchema>;
