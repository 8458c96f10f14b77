import { Body, Controller, Get, Inject, Param, Patch } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiTags } from '@nestjs/swagger';
import type { PrismaClient } from '@tollgate/db';
import { z } from 'zod';
import { Access } from '../../common/access.decorator';
import { actorOf } from '../../common/audit';
import { type Caller, CurrentCaller } from '../../common/caller';
import { IdPipe } from '../../common/id.pipe';
import { ZodPipe } from '../../common/zod.pipe';
import { PRISMA } from '../../infra/infra.module';
import { toLimitView, type PlanView } from './plan-views';
import { type UpdatePlanLimit, UpdatePlanLimitUseCase, updatePlanLimitSchema } from './use-cases/update-plan-limit.use-case';

@ApiTags('plans')
@ApiBearerAuth()
@Controller('v1/admin/plans')
export class PlansController {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    private readonly updatePlanLimit: UpdatePlanLimitUseCase,
  ) {}

  /** Every plan with its limits and how many tenants are on it. */
  @Get()
  @Access('operator')
  async list(): Promise<{ items: PlanView[] }> {
    const plans = await this.prisma.plan.findMany({
      orderBy: { slug: 'asc' },
      include: { limits: { orderBy: [{ windowS: 'asc' }, { name: 'asc' }] }, _count: { select: { tenants: true } } },
    });
    return {
      items: plans.map((p) => ({ id: p.id, slug: p.slug, name: p.name, tenantCount: p._count.tenants, limits: p.limits.map(toLimitView) })),
    };
  }

  /** Changes one limit; answers with the rule set version that carries the change. */
  @Patch(':planId/limits/:limitId')
  @Access('operator')
  @ApiBody({ schema: { ...(z.toJSONSchema(updatePlanLimitSchema) as object), example: { limit: 20 } } })
  update(
    @CurrentCaller() caller: Caller,
    @Param('planId', IdPipe) planId: string,
    @Param('limitId', IdPipe) limitId: string,
    @Body(new ZodPipe(updatePlanLimitSchema)) body: UpdatePlanLimit,
  ) {
    return this.updatePlanLimit.execute(actorOf(caller), planId, limitId, body);
  }
}
