import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@tollgate/domain';
import type { Prisma } from '@tollgate/db';
import { auditedChange, writeAudit } from '../../../common/audit';
import { found } from '../../../common/found';
import { RuleChangeService } from '../../rules/rule-change.service';
import type { NewTenant, TenantPatch } from '../dto/tenant.schemas';
import { tenantInclude, toTenantView, type TenantView } from '../tenant-views';

type Tx = Prisma.TransactionClient;

async function assertPlan(tx: Tx, planId: string): Promise<void> {
  const plan = await tx.plan.findUnique({ where: { id: planId }, select: { id: true } });
  if (!plan) throw new AppError(ErrorCode.VALIDATION_FAILED, 'no plan with this id', 'planId');
}

/** Creates a tenant on a plan, as one audited rule change (it is enforced from the new version on). */
@Injectable()
export class CreateTenantUseCase {
  constructor(private readonly changes: RuleChangeService) {}

  async execute(actor: string, input: NewTenant): Promise<{ tenant: TenantView; ruleVersion: number }> {
    const { view, ruleVersion } = await auditedChange(this.changes, { actor, action: 'tenant.created', entityType: 'tenant' }, toTenantView, async (tx) => {
      await assertPlan(tx, input.planId);
      return { after: await tx.tenant.create({ data: input, include: tenantInclude }) };
    });
    return { tenant: view, ruleVersion };
  }
}

/** Renames a tenant, moves it to another plan, suspends or resumes it, changes its time zone or its caps. */
@Injectable()
export class UpdateTenantUseCase {
  constructor(private readonly changes: RuleChangeService) {}

  async execute(actor: string, tenantId: string, patch: TenantPatch): Promise<{ tenant: TenantView; ruleVersion: number }> {
    const entry = { actor, action: 'tenant.updated', entityType: 'tenant', entityId: tenantId };
    const { view, ruleVersion } = await auditedChange(this.changes, entry, toTenantView, async (tx) => {
      const before = found(await tx.tenant.findUnique({ where: { id: tenantId }, include: tenantInclude }), 'tenant');
      if (patch.planId) await assertPlan(tx, patch.planId);
      const { caps, ...fields } = patch;
      const data = {
        ...fields,
        ...(caps?.webhookEndpoints !== undefined ? { webhookEndpointCap: caps.webhookEndpoints } : {}),
        ...(caps?.alertRules !== undefined ? { alertRuleCap: caps.alertRules } : {}),
      };
      return { before, after: await tx.tenant.update({ where: { id: tenantId }, data, include: tenantInclude }) };
    });
    return { tenant: view, ruleVersion };
  }
}

/**
 * Deletes a tenant and everything that is only its own (overrides, policies, keys, users, its place in service
 * keys' scopes: the database cascades), as one audited rule change: from the new version on, its keys and slug
 * check nothing, and a service key scoped only to it checks no tenant (never every tenant).
 */
@Injectable()
export class DeleteTenantUseCase {
  constructor(private readonly changes: RuleChangeService) {}

  async execute(actor: string, tenantId: string): Promise<{ ruleVersion: number }> {
    const { ruleVersion } = await this.changes.commit(actor, async (tx) => {
      const before = found(await tx.tenant.findUnique({ where: { id: tenantId }, include: tenantInclude }), 'tenant');
      const [keys, users, policies, serviceKeyScopes] = await Promise.all([
        tx.apiKey.count({ where: { tenantId } }),
        tx.user.count({ where: { tenantId } }),
        tx.endpointPolicy.count({ where: { tenantId } }),
        tx.apiKeyTenantScope.count({ where: { tenantId } }),
      ]);
      await tx.tenant.delete({ where: { id: tenantId } });
      await writeAudit(tx, { actor, action: 'tenant.deleted', entityType: 'tenant', entityId: tenantId, before: { ...toTenantView(before), deleted: { keys, users, policies, serviceKeyScopes } } });
    });
    return { ruleVersion };
  }
}
