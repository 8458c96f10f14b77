import { Body, Inject, Param, Query } from '@nestjs/common';
import { policyAnswerSchema, policyPageSchema, policyViewSchema, ruleVersionAnswerSchema } from '@tollgate/domain';
import type { PrismaClient } from '@tollgate/db';
import { BearerController, OperatorRoute } from '../../common/route';
import { actorOf } from '../../common/audit';
import { type Caller, CurrentCaller } from '../../common/caller';
import { IdPipe } from '../../common/id.pipe';
import { ApiQueryOf } from '../../common/api-query';
import { ZodPipe } from '../../common/zod.pipe';
import { pageOfRows } from '../../common/page-size';
import { containsText } from '../../common/text-filter';
import { found } from '../../common/found';
import { PRISMA } from '../../infra/infra.module';
import {
  type ListPoliciesQuery,
  listPoliciesQuery,
  type NewPolicy,
  newPolicySchema,
  type PolicyPatch,
  policyPatchSchema,
} from './dto/policy.schemas';
import { afterPolicyCursor, encodePolicyCursor, policyOrder } from './policy-cursor';
import { policyInclude, toPolicyView, type PolicyView } from './policy-views';
import { CreatePolicyUseCase, DeletePolicyUseCase, UpdatePolicyUseCase } from './use-cases/policies.use-cases';

const EXAMPLE_POLICY = {
  planId: '00000000-0000-4000-8000-000000000000',
  name: 'items',
  method: 'GET',
  pattern: '/v1/items/*',
  cost: 1,
  scope: 'subject',
  mode: 'shadow',
  failureMode: 'open',
  limits: [{ name: 'second', windowS: 1, limit: 20, algorithm: 'token_bucket', burst: 40 }, { name: 'minute', windowS: 60, limit: 600 }],
};

/**
 * Endpoint policies: limits per method + route pattern, of a plan (every tenant on it) or of one tenant (replacing
 * its plan's policy of the same route). Every write is one audited rule change and answers with its rule set version.
 */
@BearerController('policies', 'v1/admin/policies')
export class PoliciesController {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    private readonly createPolicy: CreatePolicyUseCase,
    private readonly updatePolicy: UpdatePolicyUseCase,
    private readonly deletePolicy: DeletePolicyUseCase,
  ) {}

  /** Policies ordered by pattern and method, a page at a time (`nextCursor` is null on the last page). */
  @OperatorRoute('GET', 'List endpoint policies', policyPageSchema)
  @ApiQueryOf(listPoliciesQuery, { planId: 'policies of this plan', tenantId: 'policies of this tenant (its own, not its plan\'s)', q: 'part of a name or route pattern' })
  async list(@Query(new ZodPipe(listPoliciesQuery)) query: ListPoliciesQuery): Promise<{ items: PolicyView[]; nextCursor: string | null }> {
    const rows = await this.prisma.endpointPolicy.findMany({
      where: {
        ...(query.cursor ? afterPolicyCursor(query.cursor) : {}),
        ...(query.planId ? { planId: query.planId } : {}),
        ...(query.tenantId ? { tenantId: query.tenantId } : {}),
        ...(query.method ? { method: query.method } : {}),
        ...(query.mode ? { mode: query.mode } : {}),
        // The cursor is an OR of its own: the text filter goes beside it, not over it.
        ...(query.q ? { AND: [{ OR: [{ name: containsText(query.q) }, { pattern: containsText(query.q) }] }] } : {}),
      },
      orderBy: policyOrder,
      take: query.pageSize + 1,
      include: policyInclude,
    });
    return pageOfRows(rows, query.pageSize, toPolicyView, encodePolicyCursor);
  }

  @OperatorRoute('GET :policyId', 'Get an endpoint policy', policyViewSchema)
  async get(@Param('policyId', IdPipe) policyId: string): Promise<PolicyView> {
    return toPolicyView(found(await this.prisma.endpointPolicy.findUnique({ where: { id: policyId }, include: policyInclude }), 'policy'));
  }

  /** A policy of a plan (`planId`) or of a tenant (`tenantId`); 409 when the owner has one for the route or name. */
  @OperatorRoute('POST', 'Create an endpoint policy', policyAnswerSchema, { body: newPolicySchema, example: EXAMPLE_POLICY })
  create(@CurrentCaller() caller: Caller, @Body(new ZodPipe(newPolicySchema)) input: NewPolicy) {
    return this.createPolicy.execute(actorOf(caller), input);
  }

  /** Switch to `enforce` after watching it in `shadow`, change the cost, the route, the failure mode… */
  @OperatorRoute('PATCH :policyId', 'Update an endpoint policy', policyAnswerSchema, {
    body: policyPatchSchema,
    example: { mode: 'enforce', cost: 2, failureMode: 'closed' },
  })
  update(@CurrentCaller() caller: Caller, @Param('policyId', IdPipe) policyId: string, @Body(new ZodPipe(policyPatchSchema)) patch: PolicyPatch) {
    return this.updatePolicy.execute(actorOf(caller), policyId, patch);
  }

  @OperatorRoute('DELETE :policyId', 'Delete an endpoint policy', ruleVersionAnswerSchema)
  remove(@CurrentCaller() caller: Caller, @Param('policyId', IdPipe) policyId: string) {
    return this.deletePolicy.execute(actorOf(caller), policyId);
  }
}
