import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@tollgate/domain';
import type { Prisma } from '@tollgate/db';
import { writeAudit } from '../../../common/audit';
import { toLimitView, type LimitView } from '../../plans/plan-views';
import { RuleChangeService } from '../../rules/rule-change.service';
import type { LimitPatch, NewLimit } from '../dto/policy.schemas';

type Tx = Prisma.TransactionClient;

async function limitOf(tx: Tx, policyId: string, limitId: string) {
  const limit = await tx.endpointPolicyLimit.findFirst({ where: { id: limitId, policyId } });
  if (!limit) throw new AppError(ErrorCode.NOT_FOUND, 'policy limit not found');
  return limit;
}

/** Adds a limit to a policy, as one audited rule change (a taken name is a 409). */
@Injectable()
export class AddPolicyLimitUseCase {
  constructor(private readonly changes: RuleChangeService) {}

  async execute(actor: string, policyId: string, input: NewLimit): Promise<{ limit: LimitView; ruleVersion: number }> {
    const { result, ruleVersion } = await this.changes.commit(actor, async (tx) => {
      if (!(await tx.endpointPolicy.findUnique({ where: { id: policyId }, select: { id: true } }))) throw new AppError(ErrorCode.NOT_FOUND, 'policy not found');
      const created = await tx.endpointPolicyLimit.create({ data: { policyId, ...input, burst: input.burst ?? null } });
      await writeAudit(tx, { actor, action: 'policy_limit.created', entityType: 'policy_limit', entityId: created.id, after: { policyId, ...toLimitView(created) } });
      return created;
    });
    return { limit: toLimitView(result), ruleVersion };
  }
}

/** Changes a policy limit's numbers or algorithm, as one audited rule change. */
@Injectable()
export class UpdatePolicyLimitUseCase {
  constructor(private readonly changes: RuleChangeService) {}

  async execute(actor: string, policyId: string, limitId: string, patch: LimitPatch): Promise<{ limit: LimitView; ruleVersion: number }> {
    const { result, ruleVersion } = await this.changes.commit(actor, async (tx) => {
      const before = await limitOf(tx, policyId, limitId);
      const after = await tx.endpointPolicyLimit.update({ where: { id: limitId }, data: patch });
      await writeAudit(tx, {
        actor,
        action: 'policy_limit.updated',
        entityType: 'policy_limit',
        entityId: limitId,
        before: { policyId, ...toLimitView(before) },
        after: { policyId, ...toLimitView(after) },
      });
      return after;
    });
    return { limit: toLimitView(result), ruleVersion };
  }
}

/** Removes a limit from a policy, as one audited rule change. */
@Injectable()
export class RemovePolicyLimitUseCase {
  constructor(private readonly changes: RuleChangeService) {}

  async execute(actor: string, policyId: string, limitId: string): Promise<{ ruleVersion: number }> {
    const { ruleVersion } = await this.changes.commit(actor, async (tx) => {
      const before = await limitOf(tx, policyId, limitId);
      await tx.endpointPolicyLimit.delete({ where: { id: limitId } });
      await writeAudit(tx, { actor, action: 'policy_limit.deleted', entityType: 'policy_limit', entityId: limitId, before: { policyId, ...toLimitView(before) } });
    });
    return { ruleVersion };
  }
}
