import { ALGORITHMS, MAX_LIMIT, MAX_WINDOW_S, limitNameSchema, slug } from '@tollgate/domain';
import { z } from 'zod';

const limitFields = {
  windowS: z.int('must be a whole number of seconds').min(1, 'must be at least 1').max(MAX_WINDOW_S, `must be at most ${MAX_WINDOW_S} (366 days)`),
  limit: z.int('must be a whole number').min(1, 'must be at least 1').max(MAX_LIMIT, `must be at most ${MAX_LIMIT}`),
  algorithm: z.enum(ALGORITHMS),
  burst: z.int('must be a whole number').min(1, 'must be at least 1').max(MAX_LIMIT, `must be at most ${MAX_LIMIT}`).nullable(),
};

/** A new limit of a plan; `algorithm` defaults to a fixed window, `burst` to the limit. */
export const newLimitSchema = z.strictObject({
  name: limitNameSchema,
  ...limitFields,
  algorithm: limitFields.algorithm.default('fixed_window'),
  burst: limitFields.burst.optional(),
});
export type NewLimit = z.infer<typeof newLimitSchema>;

/** A change of a limit: any of its numbers or its algorithm (the name is its identity). */
export const limitPatchSchema = z
  .strictObject({ limit: limitFields.limit, windowS: limitFields.windowS, algorithm: limitFields.algorithm, burst: limitFields.burst })
  .partial()
  .refine((p) => Object.keys(p).length > 0, 'nothing to change');
export type LimitPatch = z.infer<typeof limitPatchSchema>;

export const newPlanSchema = z.strictObject({
  slug,
  name: z.string().trim().min(1).max(100),
  limits: z
    .array(newLimitSchema)
    .max(20)
    .default([])
    .refine((ls) => new Set(ls.map((l) => l.name)).size === ls.length, 'limit names must be unique'),
});
export type NewPlan = z.infer<typeof newPlanSchema>;

export const planPatchSchema = z.strictObject({ name: z.string().trim().min(1).max(100) });
export type PlanPatch = z.infer<typeof planPatchSchema>;
