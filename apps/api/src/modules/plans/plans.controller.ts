import { Body, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { freeText, planAnswerSchema, planPageSchema, type PlansAtLimit, plansAtLimitSchema, planViewSchema, ruleVersionAnswerSchema, slug } from '@tollgate/domain';
import { z } from 'zod';
import type { PrismaClient } from '@tollgate/db';
import { Access } from '../../common/access.decorator';
import { BearerController, OperatorRoute } from '../../common/route';
import { ApiAnswer } from '../../common/api-json-body';
import { actorOf } from '../../common/audit';
import { type Caller, CurrentCaller } from '../../common/caller';
import { IdPipe } from '../../common/id.pipe';
import { idList } from '../../common/id-list';
import { ApiQueryOf } from '../../common/api-query';
import { ZodPipe } from '../../common/zod.pipe';
import { pageOfRows, pageSizeQuery } from '../../common/page-size';
import { containsText } from '../../common/text-filter';
import { found } from '../../common/found';
import { PRISMA } from '../../infra/infra.module';
import { AT_LIMIT_CHECKED, LimitsInForceService } from '../tenant-self/limits-in-force.service';
import { type NewPlan, newPlanSchema, type PlanPatch, planPatchSchema } from './dto/plan.schemas';
import { planInclude, toPlanView, type PlanView } from './plan-views';
import { CreatePlanUseCase, DeletePlanUseCase, UpdatePlanUseCase } from './use-cases/plans.use-cases';

const atLimitQuery = z.strictObject({ id: idList('a plan') });

const listQuery = z.strictObject({
  ...pageSizeQuery,
  /** The slug of the last plan of the previous page. */
  cursor: slug.optional(),
  /** Plans whose slug or name contains this (case-insensitive). */
  q: freeText(100).optional(),
});

/** Plans (tariffs) and their limits. Every write is one audited rule change and answers with its rule set version. */
@BearerController('plans', 'v1/admin/plans')
export class PlansController {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    private readonly createPlan: CreatePlanUseCase,
    private readonly updatePlan: UpdatePlanUseCase,
    private readonly deletePlan: DeletePlanUseCase,
    private readonly limitsInForce: LimitsInForceService,
  ) {}

  /** Every plan with its limits and how many tenants are on it. */
  @OperatorRoute('GET', 'List plans', planPageSchema)
  @ApiQueryOf(listQuery, { q: 'part of a slug or name' })
  async list(@Query(new ZodPipe(listQuery)) query: z.infer<typeof listQuery>): Promise<{ items: PlanView[]; nextCursor: string | null }> {
    const plans = await this.prisma.plan.findMany({
      where: {
        ...(query.cursor ? { slug: { gt: query.cursor } } : {}),
        ...(query.q ? { OR: [{ slug: containsText(query.q) }, { name: containsText(query.q) }] } : {}),
      },
      orderBy: { slug: 'asc' },
      include: planInclude,
      take: query.pageSize + 1,
    });
    return pageOfRows(plans, query.pageSize, toPlanView, (last) => last.slug);
  }

  /**
   * How many tenants of each plan are at one of their limits now (a limit that would refuse a request of cost 1,
   * read without charging), of at most AT_LIMIT_CHECKED tenants per plan: the rows of the plans page in one read.
   */
  @Get('at-limit')
  @ApiOperation({ summary: 'Get how many tenants of plans are at their limit' })
  @Access('operator')
  @ApiQueryOf(atLimitQuery, { id: `a plan id; repeat it for each (at most 200); at most ${AT_LIMIT_CHECKED} tenants of each are read` })
  @ApiAnswer(plansAtLimitSchema)
  atLimit(@Query(new ZodPipe(atLimitQuery)) query: z.infer<typeof atLimitQuery>): Promise<PlansAtLimit> {
    return this.limitsInForce.atLimit(query.id.map((id) => id.toLowerCase()));
  }

  @OperatorRoute('GET :planId', 'Get a plan', planViewSchema)
  async get(@Param('planId', IdPipe) planId: string): Promise<PlanView> {
    return toPlanView(found(await this.prisma.plan.findUnique({ where: { id: planId }, include: planInclude }), 'plan'));
  }

  @OperatorRoute('POST', 'Create a plan', planAnswerSchema, {
    body: newPlanSchema,
    example: { slug: 'business', name: 'Business', limits: [{ name: 'minute', windowS: 60, limit: 100 }, { name: 'daily', limit: 50000, calendar: 'day' }] },
  })
  create(@CurrentCaller() caller: Caller, @Body(new ZodPipe(newPlanSchema)) input: NewPlan) {
    return this.createPlan.execute(actorOf(caller), input);
  }

  @OperatorRoute('PATCH :planId', 'Update a plan', planAnswerSchema, { body: planPatchSchema, example: { name: 'Business (2027)' } })
  update(@CurrentCaller() caller: Caller, @Param('planId', IdPipe) planId: string, @Body(new ZodPipe(planPatchSchema)) patch: PlanPatch) {
    return this.updatePlan.execute(actorOf(caller), planId, patch);
  }

  /** 409 while tenants are on the plan. */
  @OperatorRoute('DELETE :planId', 'Delete a plan', ruleVersionAnswerSchema)
  remove(@CurrentCaller() caller: Caller, @Param('planId', IdPipe) planId: string) {
    return this.deletePlan.execute(actorOf(caller), planId);
  }
}
