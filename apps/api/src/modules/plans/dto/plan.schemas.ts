import { newLimitsSchema, slug } from '@tollgate/domain';
import { z } from 'zod';

export { limitPatchSchema, newLimitSchema, type LimitPatch, type NewLimit } from '@tollgate/domain';

export const newPlanSchema = z.strictObject({
  slug,
  name: z.string().trim().min(1).max(100),
  limits: newLimitsSchema,
});
export type NewPlan = z.infer<typeof newPlanSchema>;

export const planPatchSchema = z.strictObject({ name: z.string().trim().min(1).max(100) });
export type PlanPatch = z.infer<typeof planPatchSchema>;
