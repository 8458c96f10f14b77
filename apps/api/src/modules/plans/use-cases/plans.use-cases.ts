import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@tollgate/domain';
import type { Prisma } from '@tollgate/db';
import { auditedChange, writeAudit } from '../../../common/audit';
import { found } from '../../../common/found';
import { RuleChangeService } from '../../rules/rule-change.service';
import type { NewPlan, PlanPatch } from '../dto/plan.schemas';
import { planInclude, toPlanView, type PlanView } from '../plan-views';

type Tx = Prisma.TransactionClient;

async function planOf(tx: Tx, planId: string) {
  const plan = found(await tx.plan.findUnique({ where: { id: planId }, include: planInclude }), 'plan');
  return plan;
}

/** Creates a plan with its limits, as one audited rule change. A taken slug is a 409. */
@Injectable()
export class CreatePlanUseCase {
  constructor(private readonly changes: RuleChangeService) {}

  async execute(actor: string, input: NewPlan): Promise<{ plan: PlanView; ruleVersion: number }> {
    const { view, ruleVersion } = await auditedChange(this.changes, { actor, action: 'plan.created', entityType: 'plan' }, toPlanView, async (tx) => ({
      after: await tx.plan.create({
        data: { slug: input.slug, name: input.name, limits: { create: input.limits.map((l) => ({ ...l, burst: l.burst ?? null })) } },
        include: planInclude,
      }),
    }));
    return { plan: view, ruleVersion };
  }
}

/** Renames a plan, as one audited rule change. */
@Injectable()
export class UpdatePlanUseCase {
  constructor(private readonly changes: RuleChangeService) {}

  async execute(actor: string, planId: string, patch: PlanPatch): Promise<{ plan: PlanView; ruleVersion: number }> {
    const entry = { actor, action: 'plan.updated', entityType: 'plan', entityId: planId };
    const { view, ruleVersion } = await auditedChange(this.changes, entry, toPlanView, async (tx) => ({
      before: await planOf(tx, planId),
      after: await tx.plan.update({ where: { id: planId }, data: patch, include: planInclude }),
    }));
    return { plan: view, ruleVersion };
  }
}

/** Deletes a plan nobody is on (409 while tenants are), as one audited rule change. */
@Injectable()
export class DeletePlanUseCase {
  constructor(private readonly changes: RuleChangeService) {}

  async execute(actor: string, planId: string): Promise<{ ruleVersion: number }> {
    const { ruleVersion } = await this.changes.commit(actor, async (tx) => {
      const before = await planOf(tx, planId);
      if (before._count.tenants > 0) throw new AppError(ErrorCode.CONFLICT, `${before._count.tenants} tenant(s) are on this plan; move them first`);
      await tx.plan.delete({ where: { id: planId } });
      await writeAudit(tx, { actor, action: 'plan.deleted', entityType: 'plan', entityId: planId, before: toPlanView(before) });
    });
    return { ruleVersion };
  }
}
