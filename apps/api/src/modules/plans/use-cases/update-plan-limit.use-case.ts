import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode, MAX_LIMIT } from '@tollgate/domain';
import type { PrismaClient } from '@tollgate/db';
import { createRuleSetVersion } from '@tollgate/rules';
import { z } from 'zod';
import { writeAudit } from '../../../common/audit';
import { PRISMA } from '../../../infra/infra.module';
import { RulePublisher } from '../../rules/rule-publisher.service';
import { toLimitView, type LimitView } from '../plan-views';

export const updatePlanLimitSchema = z.strictObject({
  limit: z.int('must be a whole number').min(1).max(MAX_LIMIT),
});
export type UpdatePlanLimit = z.infer<typeof updatePlanLimitSchema>;

/**
 * Changes one limit of a plan: the change, its audit record and the new rule set version commit together
 * (a refused rule set rolls all of it back); then every API node is handed the new version.
 */
@Injectable()
export class UpdatePlanLimitUseCase {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    private readonly publisher: RulePublisher,
  ) {}

  async execute(actor: string, planId: string, limitId: string, patch: UpdatePlanLimit): Promise<{ limit: LimitView; ruleVersion: number }> {
    const { limit, ruleSet } = await this.prisma.$transaction(async (tx) => {
      const before = await tx.planLimit.findFirst({ where: { id: limitId, planId } });
      if (!before) throw new AppError(ErrorCode.NOT_FOUND, 'plan limit not found');
      const after = await tx.planLimit.update({ where: { id: limitId }, data: { limit: patch.limit } });
      await writeAudit(tx, {
        actor,
        action: 'plan_limit.updated',
        entityType: 'plan_limit',
        entityId: limitId,
        before: toLimitView(before),
        after: toLimitView(after),
      });
      return { limit: after, ruleSet: await createRuleSetVersion(tx, actor) };
    });
    await this.publisher.publish(ruleSet);
    return { limit: toLimitView(limit), ruleVersion: ruleSet.version };
  }
}
