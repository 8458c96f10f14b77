import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@tollgate/domain';
import type { Prisma } from '@tollgate/db';
import { writeAudit } from '../../common/audit';
import { RuleChangeService } from '../rules/rule-change.service';
import type { OverrideInput } from './tenant.schemas';
import { toOverrideView, type OverrideView } from './tenant-views';

type AlgorithmValue = Prisma.TenantLimitOverrideCreateInput['algorithm'];

async function assertTenant(tx: Prisma.TransactionClient, tenantId: string): Promise<void> {
  if (!(await tx.tenant.findUnique({ where: { id: tenantId }, select: { id: true } }))) throw new AppError(ErrorCode.NOT_FOUND, 'tenant not found');
}

/** Sets a tenant's own version of a limit (creates or replaces it), as one audited rule change. */
@Injectable()
export class SetOverrideUseCase {
  constructor(private readonly changes: RuleChangeService) {}

  async execute(actor: string, tenantId: string, name: string, input: OverrideInput): Promise<{ override: OverrideView; ruleVersion: number }> {
    const { result, ruleVersion } = await this.changes.commit(actor, async (tx) => {
      await assertTenant(tx, tenantId);
      const before = await tx.tenantLimitOverride.findUnique({ where: { tenantId_name: { tenantId, name } } });
      const data = { ...input, algorithm: input.algorithm as AlgorithmValue };
      const after = await tx.tenantLimitOverride.upsert({ where: { tenantId_name: { tenantId, name } }, create: { tenantId, name, ...data }, update: data });
      await writeAudit(tx, { actor, action: 'tenant_override.set', entityType: 'tenant', entityId: tenantId, before: before ? toOverrideView(before) : undefined, after: toOverrideView(after) });
      return after;
    });
    return { override: toOverrideView(result), ruleVersion };
  }
}

/** Removes a tenant's override: the plan's limit of that name applies again (if there is one). */
@Injectable()
export class RemoveOverrideUseCase {
  constructor(private readonly changes: RuleChangeService) {}

  async execute(actor: string, tenantId: string, name: string): Promise<{ ruleVersion: number }> {
    const { ruleVersion } = await this.changes.commit(actor, async (tx) => {
      await assertTenant(tx, tenantId);
      const before = await tx.tenantLimitOverride.findUnique({ where: { tenantId_name: { tenantId, name } } });
      if (!before) throw new AppError(ErrorCode.NOT_FOUND, 'override not found');
      await tx.tenantLimitOverride.delete({ where: { id: before.id } });
      await writeAudit(tx, { actor, action: 'tenant_override.removed', entityType: 'tenant', entityId: tenantId, before: toOverrideView(before) });
    });
    return { ruleVersion };
  }
}
