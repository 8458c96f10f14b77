import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode, MAX_LIMIT } from '@tollgate/domain';
import { z } from 'zod';
import { writeAudit } from '../../../common/audit';
import { RuleChangeService } from '../../rules/rule-change.service';
import { toLimitView, type LimitView } from '../plan-views';

export const updatePlanLimitSchema = z.strictObject({
  limit: z.int('must be a whole number').min(1).max(MAX_LIMIT),
});
export type UpdatePlanLimit = z.infer<typeof updatePlanLimitSchema>;

/** Changes one limit of a plan, as one audited rule change (see RuleChangeService). */
@Injectable()
export class UpdatePlanLimitUseCase {
  constructor(private readonly changes: RuleChangeService) {}

  async execute(actor: string, planId: string, limitId: string, patch: UpdatePlanLimit): Promise<{ limit: LimitView; ruleVersion: number }> {
    const { result, ruleVersion } = await this.changes.commit(actor, async (tx) => {
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
      return after;
    });
    return { limit: toLimitView(result), ruleVersion };
  }
}
