import { Body, Param, type Type } from '@nestjs/common';
import { limitAnswerSchema, type LimitPatch, limitPatchSchema, type NewLimit, newLimitSchema, ruleVersionAnswerSchema } from '@tollgate/domain';
import { BearerController, OperatorRoute } from '../../common/route';
import { actorOf } from '../../common/audit';
import { type Caller, CurrentCaller } from '../../common/caller';
import { IdPipe } from '../../common/id.pipe';
import { ZodPipe } from '../../common/zod.pipe';
import { AddLimitUseCase, RemoveLimitUseCase, UpdateLimitUseCase } from './use-cases/owner-limits.use-cases';

interface LimitRoutes {
  /** The controller's name (OpenAPI names operations after it). */
  name: string;
  kind: 'plan' | 'policy';
  /** The owner's routes (`v1/admin/plans`) and the name of its id in them (`planId`). */
  base: string;
  param: string;
  /** The OpenAPI tag of the owner's routes, and the examples of a new limit and of a change. */
  tag: string;
  examples: { create: object; patch: object };
}

/**
 * The routes of an owner's limits by id: `POST <base>/:<param>/limits`, `PATCH` and `DELETE …/limits/:limitId`,
 * the same for plans and endpoint policies (a tenant's overrides are named by name: see the tenants controller).
 */
export function limitsController({ name, kind, base, param, tag, examples }: LimitRoutes): Type {
  @BearerController(tag, `${base}/:${param}/limits`)
  class OwnerLimitsController {
    constructor(
      private readonly addLimit: AddLimitUseCase,
      private readonly updateLimit: UpdateLimitUseCase,
      private readonly removeLimit: RemoveLimitUseCase,
    ) {}

    @OperatorRoute('POST', `Add a ${kind} limit`, limitAnswerSchema, { body: newLimitSchema, example: examples.create })
    createLimit(@CurrentCaller() caller: Caller, @Param(param, IdPipe) ownerId: string, @Body(new ZodPipe(newLimitSchema)) input: NewLimit) {
      return this.addLimit.execute(actorOf(caller), kind, ownerId, input);
    }

    /** Changes one limit; answers with the rule set version that carries the change. */
    @OperatorRoute('PATCH :limitId', `Update a ${kind} limit`, limitAnswerSchema, { body: limitPatchSchema, example: examples.patch })
    patchLimit(
      @CurrentCaller() caller: Caller,
      @Param(param, IdPipe) ownerId: string,
      @Param('limitId', IdPipe) limitId: string,
      @Body(new ZodPipe(limitPatchSchema)) patch: LimitPatch,
    ) {
      return this.updateLimit.execute(actorOf(caller), kind, ownerId, { id: limitId }, patch);
    }

    @OperatorRoute('DELETE :limitId', `Delete a ${kind} limit`, ruleVersionAnswerSchema)
    deleteLimit(@CurrentCaller() caller: Caller, @Param(param, IdPipe) ownerId: string, @Param('limitId', IdPipe) limitId: string) {
      return this.removeLimit.execute(actorOf(caller), kind, ownerId, { id: limitId });
    }
  }
  // One class per owner, each named for it: Nest registers them apart and OpenAPI's operation ids stay unique.
  Object.defineProperty(OwnerLimitsController, 'name', { value: name });
  return OwnerLimitsController;
}

export const PlanLimitsController = limitsController({
  name: 'PlanLimitsController',
  kind: 'plan',
  base: 'v1/admin/plans',
  param: 'planId',
  tag: 'plans',
  examples: { create: { name: 'second', windowS: 1, limit: 5, algorithm: 'token_bucket', burst: 10 }, patch: { limit: 20 } },
});

export const PolicyLimitsController = limitsController({
  name: 'PolicyLimitsController',
  kind: 'policy',
  base: 'v1/admin/policies',
  param: 'policyId',
  tag: 'policies',
  examples: { create: { name: 'daily', limit: 10000, calendar: 'day' }, patch: { limit: 1200 } },
});
