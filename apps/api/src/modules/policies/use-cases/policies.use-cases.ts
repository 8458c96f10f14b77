import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@tollgate/domain';
import type { Prisma } from '@tollgate/db';
import { auditedChange, writeAudit } from '../../../common/audit';
import { found } from '../../../common/found';
import { RuleChangeService } from '../../rules/rule-change.service';
import type { NewPolicy, PolicyPatch } from '../dto/policy.schemas';
import { policyInclude, toPolicyView, type PolicyView } from '../policy-views';

type Tx = Prisma.TransactionClient;
type Owner = { planId: string; tenantId?: undefined } | { tenantId: string; planId?: undefined };

export async function policyOf(tx: Tx, policyId: string) {
  const policy = found(await tx.endpointPolicy.findUnique({ where: { id: policyId }, include: policyInclude }), 'policy');
  return policy;
}

async function assertOwner(tx: Tx, owner: Owner): Promise<void> {
  const found = owner.planId
    ? await tx.plan.findUnique({ where: { id: owner.planId }, select: { id: true } })
    : await tx.tenant.findUnique({ where: { id: owner.tenantId }, select: { id: true } });
  if (!found) throw new AppError(ErrorCode.VALIDATION_FAILED, `no ${owner.planId ? 'plan' : 'tenant'} with this id`, owner.planId ? 'planId' : 'tenantId');
}

/**
 * A 409 naming what is taken: an owner has one policy per method + pattern, and one per name (the name prefixes
 * its limits' names in check answers). The unique indexes say the same; this says it in words.
 */
async function assertFree(tx: Tx, owner: Owner, policy: { name: string; method: string; pattern: string }, exceptId?: string): Promise<void> {
  const where = owner.planId ? { planId: owner.planId } : { tenantId: owner.tenantId };
  const clash = await tx.endpointPolicy.findFirst({
    where: { ...where, ...(exceptId ? { id: { not: exceptId } } : {}), OR: [{ method: policy.method, pattern: policy.pattern }, { name: policy.name }] },
    select: { name: true, method: true, pattern: true },
  });
  if (!clash) return;
  const whose = owner.planId ? 'this plan' : 'this tenant';
  throw new AppError(
    ErrorCode.CONFLICT,
    clash.method === policy.method && clash.pattern === policy.pattern
      ? `${whose} already has a policy for ${policy.method} ${policy.pattern} (${clash.name})`
      : `${whose} already has a policy named ${policy.name}`,
  );
}

function ownerOf(p: { planId: string | null; tenantId: string | null }): Owner {
  return p.planId !== null ? { planId: p.planId } : { tenantId: p.tenantId! };
}

/** Creates a policy of a plan or a tenant with its limits, as one audited rule change. */
@Injectable()
export class CreatePolicyUseCase {
  constructor(private readonly changes: RuleChangeService) {}

  async execute(actor: string, input: NewPolicy): Promise<{ policy: PolicyView; ruleVersion: number }> {
    const { limits, planId, tenantId, ...fields } = input;
    const owner: Owner = planId ? { planId } : { tenantId: tenantId! };
    const { view, ruleVersion } = await auditedChange(this.changes, { actor, action: 'policy.created', entityType: 'policy' }, toPolicyView, async (tx) => {
      await assertOwner(tx, owner);
      await assertFree(tx, owner, fields);
      const after = await tx.endpointPolicy.create({
        data: { ...owner, ...fields, limits: { create: limits.map((l) => ({ ...l, burst: l.burst ?? null })) } },
        include: policyInclude,
      });
      return { after };
    });
    return { policy: view, ruleVersion };
  }
}

/** Changes a policy's route, name, cost, scope, mode or failure mode, as one audited rule change. */
@Injectable()
export class UpdatePolicyUseCase {
  constructor(private readonly changes: RuleChangeService) {}

  async execute(actor: string, policyId: string, patch: PolicyPatch): Promise<{ policy: PolicyView; ruleVersion: number }> {
    const entry = { actor, action: 'policy.updated', entityType: 'policy', entityId: policyId };
    const { view, ruleVersion } = await auditedChange(this.changes, entry, toPolicyView, async (tx) => {
      const before = await policyOf(tx, policyId);
      if (patch.name !== undefined || patch.method !== undefined || patch.pattern !== undefined) {
        await assertFree(tx, ownerOf(before), { name: patch.name ?? before.name, method: patch.method ?? before.method, pattern: patch.pattern ?? before.pattern }, policyId);
      }
      return { before, after: await tx.endpointPolicy.update({ where: { id: policyId }, data: patch, include: policyInclude }) };
    });
    return { policy: view, ruleVersion };
  }
}

/** Deletes a policy with its limits, as one audited rule change. */
@Injectable()
export class DeletePolicyUseCase {
  constructor(private readonly changes: RuleChangeService) {}

  async execute(actor: string, policyId: string): Promise<{ ruleVersion: number }> {
    const { ruleVersion } = await this.changes.commit(actor, async (tx) => {
      const before = await policyOf(tx, policyId);
      await tx.endpointPolicy.delete({ where: { id: policyId } });
      await writeAudit(tx, { actor, action: 'policy.deleted', entityType: 'policy', entityId: policyId, before: toPolicyView(before) });
    });
    return { ruleVersion };
  }
}
