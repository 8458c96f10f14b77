import { FAILURE_MODES, freeText, MAX_COST, newLimitsSchema, patchSchema, POLICY_METHODS, POLICY_MODES, policyNameSchema, REGION_SCOPES, routePatternSchema, SUBJECT_SCOPES } from '@tollgate/domain';
import { z } from 'zod';
import { pageSizeQuery } from '../../../common/page-size';

const policyFields = {
  name: policyNameSchema,
  method: z.enum(POLICY_METHODS),
  pattern: routePatternSchema,
  cost: z.int('must be a whole number').min(1, 'must be at least 1').max(MAX_COST, `must be at most ${MAX_COST}`),
  scope: z.enum(SUBJECT_SCOPES),
  mode: z.enum(POLICY_MODES),
  failureMode: z.enum(FAILURE_MODES),
  /**
   * Answer a check from Redis only once a replica holds its writes (`WAIT`, `REPLICA_ACK_TIMEOUT_MS`): a failover
   * cannot then forget what was admitted. No acknowledgement in time: the failure mode answers.
   */
  replicaAck: z.boolean('must be true or false'),
  /**
   * `global`: one quota across every region (REGIONS), its fixed-window limits shared out among the regions and
   * rebalanced by demand, never admitting more than the limit in all; `region`: each region admits the whole limit.
   */
  regionScope: z.enum(REGION_SCOPES),
};

/** A new policy of a plan (`planId`) or of a tenant (`tenantId`), with its first limits. */
export const newPolicySchema = z
  .strictObject({
    planId: z.uuid('must be a plan id').optional(),
    tenantId: z.uuid('must be a tenant id').optional(),
    ...policyFields,
    cost: policyFields.cost.default(1),
    scope: policyFields.scope.default('tenant'),
    mode: policyFields.mode.default('enforce'),
    failureMode: policyFields.failureMode.default('open'),
    replicaAck: policyFields.replicaAck.default(false),
    regionScope: policyFields.regionScope.default('region'),
    limits: newLimitsSchema,
  })
  .superRefine((p, ctx) => {
    if ((p.planId === undefined) === (p.tenantId === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['planId'], message: 'give exactly one of planId (a plan\'s policy) and tenantId (a tenant\'s own)' });
    }
  });
export type NewPolicy = z.infer<typeof newPolicySchema>;

/** A change of a policy; its owner is its identity and does not change. */
export const policyPatchSchema = patchSchema(policyFields);
export type PolicyPatch = z.infer<typeof policyPatchSchema>;

export const listPoliciesQuery = z.strictObject({
  ...pageSizeQuery,
  /** `nextCursor` of the previous page. */
  cursor: z.string().max(400).regex(/^[A-Za-z0-9_-]*$/, 'not a cursor this API handed out').optional(),
  planId: z.uuid().optional(),
  tenantId: z.uuid().optional(),
  method: z.enum(POLICY_METHODS).optional(),
  mode: z.enum(POLICY_MODES).optional(),
  /** Policies whose name or route pattern contains this (case-insensitive). */
  q: freeText(100).optional(),
});
export type ListPoliciesQuery = z.infer<typeof listPoliciesQuery>;
