import { z } from 'zod';
import { namedRefSchema } from './answers';
import { USAGE_STEPS } from './usage-answers';

/**
 * Why Redis did not decide a check that a failure mode then answered: it answered after the decision deadline
 * (`deadline`), the circuit in front of it was open (`circuit_open`: not asked), the call failed (`redis_error`:
 * refused, reset, timed out by the client), or a policy that waits for a replica got no acknowledgement in time
 * (`replica`).
 */
export const DEGRADED_CAUSES = ['deadline', 'circuit_open', 'redis_error', 'replica'] as const;
export type DegradedCause = (typeof DEGRADED_CAUSES)[number];

/** How a failure mode answered a check Redis did not decide: passed, refused with a 503, or decided on the node. */
export type DegradedMode = 'open' | 'closed' | 'local';

const byCauseSchema = z
  .object({
    deadline: z.int(),
    circuit_open: z.int(),
    redis_error: z.int(),
    replica: z.int(),
    unknown: z.int().describe('counted before usage kept the cause of a degraded decision'),
  })
  .describe('the decisions of each cause');

/**
 * The decisions failure modes made over a range because Redis did not decide (`GET /v1/admin/usage/degraded`): by
 * cause, per bucket, and the tenants with the most of them. Exact (from the usage rollups, like the series).
 */
export const degradedUsageSchema = z.object({
  from: z.string(),
  to: z.string(),
  step: z.enum(USAGE_STEPS),
  decisions: z.int().describe('every degraded decision of the range'),
  byCause: byCauseSchema,
  points: z.array(z.object({ at: z.string(), decisions: z.int(), byCause: byCauseSchema })).describe('one per bucket (UTC), oldest first, zeros where none'),
  tenants: z
    .array(z.object({ tenant: namedRefSchema.nullable().describe('null when deleted since'), decisions: z.int(), byCause: byCauseSchema }))
    .describe('the tenants with the most degraded decisions, most first'),
});
export type DegradedUsageView = z.infer<typeof degradedUsageSchema>;
