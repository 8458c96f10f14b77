import { z } from 'zod';

/** Algorithms the enforcement engine can run for a limit (libs/limiter/README.md describes each). */
export const ALGORITHMS = [
  'fixed_window',
  'sliding_log',
  'sliding_window',
  'token_bucket',
  'leaky_bucket',
  'leaky_bucket_shaper',
  'gcra',
] as const;
export type Algorithm = (typeof ALGORITHMS)[number];

export const MAX_LIMIT = 1_000_000_000;
export const MAX_WINDOW_S = 366 * 86_400;

export const limitNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must be 1-32 lower-case letters, digits, _ or -, starting with a letter');

/** One quota: at most `limit` units of cost per window of `windowS` seconds. */
export const limitSpecSchema = z.object({
  name: limitNameSchema,
  windowS: z.int().min(1).max(MAX_WINDOW_S),
  limit: z.int().min(1).max(MAX_LIMIT),
  algorithm: z.enum(ALGORITHMS),
  /** Bucket capacity for token/leaky buckets and GCRA; defaults to `limit`. */
  burst: z.int().min(1).max(MAX_LIMIT).optional(),
});
export type LimitSpec = z.infer<typeof limitSpecSchema>;

const wholeNumber = () => z.int('must be a whole number').min(1, 'must be at least 1').max(MAX_LIMIT, `must be at most ${MAX_LIMIT}`);

/** The fields of a limit as the admin API takes them (plans, tenant overrides, endpoint policies), with readable messages. */
export const limitInputFields = {
  windowS: z.int('must be a whole number of seconds').min(1, 'must be at least 1').max(MAX_WINDOW_S, `must be at most ${MAX_WINDOW_S} (366 days)`),
  limit: wholeNumber(),
  algorithm: z.enum(ALGORITHMS),
  burst: wholeNumber().nullable(),
};

/** A new limit; `algorithm` defaults to a fixed window, `burst` to the limit. */
export const newLimitSchema = z.strictObject({
  name: limitNameSchema,
  ...limitInputFields,
  algorithm: limitInputFields.algorithm.default('fixed_window'),
  burst: limitInputFields.burst.optional(),
});
export type NewLimit = z.infer<typeof newLimitSchema>;

/** A change of a limit: any of its numbers or its algorithm (the name is its identity). */
export const limitPatchSchema = z
  .strictObject(limitInputFields)
  .partial()
  .refine((p) => Object.keys(p).length > 0, 'nothing to change');
export type LimitPatch = z.infer<typeof limitPatchSchema>;

/** A list of new limits with unique names. */
export const newLimitsSchema = z
  .array(newLimitSchema)
  .max(20)
  .default([])
  .refine((ls) => new Set(ls.map((l) => l.name)).size === ls.length, 'limit names must be unique');
