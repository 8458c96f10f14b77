import { freeText, limitBodySchema, limitNameSchema, patchSchema, slug, TENANT_STATUSES, tenantCapsPatchSchema, timeZoneSchema, type LimitBody } from '@tollgate/domain';
import { z } from 'zod';

export const newTenantSchema = z.strictObject({
  slug,
  name: freeText(100),
  planId: z.uuid('must be a plan id'),
  timeZone: timeZoneSchema.default('UTC'),
  status: z.enum(TENANT_STATUSES).default('active'),
});
export type NewTenant = z.infer<typeof newTenantSchema>;

export const tenantPatchSchema = patchSchema({
  name: freeText(100),
  planId: z.uuid('must be a plan id'),
  timeZone: timeZoneSchema,
  status: z.enum(TENANT_STATUSES),
  /** Its own caps on webhook endpoints and alert rules (null: back to the installation's default). */
  caps: tenantCapsPatchSchema,
});
export type TenantPatch = z.infer<typeof tenantPatchSchema>;

/** A tenant's own version of a limit (replaces the plan's limit of the same name, or adds one). */
export const overrideSchema = limitBodySchema;
export type OverrideInput = LimitBody;
export const overrideName = limitNameSchema;
