import { freeText, newLimitsSchema, slug } from '@tollgate/domain';
import { z } from 'zod';

export const newPlanSchema = z.strictObject({
  slug,
  name: freeText(100),
  limits: newLimitsSchema,
});
export type NewPlan = z.infer<typeof newPlanSchema>;

export const planPatchSchema = z.strictObject({ name: freeText(100) });
export type PlanPatch = z.infer<typeof planPatchSchema>;
