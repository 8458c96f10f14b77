import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@tollgate/domain';
import type { Prisma } from '@tollgate/db';
import { writeAudit } from '../../../common/audit';
import { RuleChangeService } from '../../rules/rule-change.service';
import type { LimitPatch, NewLimit } from '../dto/plan.schemas';
import { toLimitView, type LimitView } from '../plan-views';

type Tx = Prisma.TransactionClient;

async function limitOf(tx: Tx, planId: string, limitId: string) {
  const limit = await tx.planLimit.findFirst({ where: { id: limitId, planId } });
  if (!limit) throw new AppError(ErrorCode.NOT_FOUND, 'plan limit not found');
  return limit;
}

async function assertPlan(tx: Tx, planId: string): Promise<void> {
  if (!(await tx.plan.findUnique({ where: { id: planId }, select: { id: true } }))) throw new AppError(ErrorCode.NOT_FOUND, 'plan not found');
}

/** Adds a limit to a plan, as one audited rule change. */
@Injectable()
export class AddPlanLimitUseCase {
  constructor(private readonly changes: RuleChangeService) {}

  async execute(actor: string, planId: string, input: NewLimit): Promise<{ limit: LimitView; ruleVersion: number }> {
    const { result, ruleVersion } = await this.changes.commit(actor, async (tx) => {
      await assertPlan(tx, planId);
      const created = await tx.planLimit.create({ data: { planId, ...input, burst: input.burst ?? null } });
      await writeAudit(tx, { actor, action: 'plan_limit.created', entityType: 'plan_limit', entityId: created.id, after: toLimitView(created) });
      return created;
    });
    return { limit: toLimitView(result), ruleVersion };
  }
}

/** Changes a limit's numbers or algorithm, as one audited rule change. */
@Injectable()
export class UpdatePlanLimitUseCase {
  constructor(private readonly changes: RuleChangeService) {}

  async execute(actor: string, planId: string, limitId: string, patch: LimitPatch): Promise<{ limit: LimitView; ruleVersion: number }> {
    const { result, ruleVersion } = await this.changes.commit(actor, async (tx) => {
      const before = await limitOf(tx, planId, limitId);
      const after = await tx.planLimit.update({ where: { id: limitId }, data: patch });
      await writeAudit(tx, { actor, action: 'plan_limit.updated', entityType: 'plan_limit', entityId: limitId, before: toLimitView(before), after: toLimitView(after) });
      return after;
    });
    return { limit: toLimitView(result), ruleVersion };
  }
}

/** Removes a limit from a plan, as one audited rule change. */
@Injectable()
export class RemovePlanLimitUseCase {
  constructor(private readonly changes: RuleChangeService) {}

  async execute(actor: string, planId: string, limitId: string): Promise<{ ruleVersion: number }> {
    const { ruleVersion } = await this.changes.commit(actor, async (tx) => {
      const before = await limitOf(tx, planId, limitId);
      await tx.planLimit.delete({ where: { id: limitId } });
      await writeAudit(tx, { actor, action: 'plan_limit.deleted', entityType: 'plan_limit', entityId: limitId, before: toLimitView(before) });
    });
    return { ruleVersion };
  }
}
