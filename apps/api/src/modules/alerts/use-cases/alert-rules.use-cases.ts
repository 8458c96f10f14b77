import { Inject, Injectable } from '@nestjs/common';
import { ALERT_PARAMS_SCHEMAS, type AlertKind, type AlertRulePatch, type AlertRuleView, AppError, ErrorCode, type NewAlertRule, parseOrThrow } from '@tollgate/domain';
import { Prisma, type PrismaClient } from '@tollgate/db';
import { z } from 'zod';
import { writeAudit } from '../../../common/audit';
import { found } from '../../../common/found';
import { PRISMA } from '../../../infra/infra.module';
import { TenantCapsService } from '../../tenant-self/tenant-caps.service';
import { toAlertRuleView } from '../alert-views';

/*
 * Alert rules are not rules of the limiter: their changes commit with their audit row in one transaction and publish
 * no rule set version. The worker reads them on its next evaluation.
 */

/** `params` as `kind` takes them (defaults filled in); a refusal names `params.<field>`. */
function paramsOf(kind: AlertKind, params: unknown): Prisma.InputJsonObject {
  return parseOrThrow(z.object({ params: ALERT_PARAMS_SCHEMAS[kind] }), { params }).params as Prisma.InputJsonObject;
}

/** A unique violation of the rule's name as the 409 it is. */
function nameTaken(err: unknown): never {
  if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') throw new AppError(ErrorCode.CONFLICT, 'an alert rule with this name exists', 'name');
  throw err;
}

/**
 * A rule disabled or deleted stops being evaluated: its pending alerts (never fired) go, its firing 429-rate and
 * platform alerts are resolved now (without an event: nothing was observed). Quota alerts resolve when their window ends.
 */
async function closeOpenAlerts(tx: Prisma.TransactionClient, ruleId: string): Promise<void> {
  await tx.alert.deleteMany({ where: { ruleId, state: 'pending' } });
  await tx.alert.updateMany({ where: { ruleId, state: 'firing', kind: { not: 'quota_threshold' } }, data: { state: 'resolved', resolvedAt: new Date() } });
}

/** Creates a rule; a rule about one tenant counts against the tenant's cap of alert rules (409 `cap_reached`). */
@Injectable()
export class CreateAlertRuleUseCase {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    private readonly caps: TenantCapsService,
  ) {}

  async execute(actor: string, input: NewAlertRule): Promise<AlertRuleView> {
    return this.prisma
      .$transaction(async (tx) => {
        if (input.planId && !(await tx.plan.findUnique({ where: { id: input.planId }, select: { id: true } }))) {
          throw new AppError(ErrorCode.VALIDATION_FAILED, 'no plan with this id', 'planId');
        }
        if (input.tenantId && !(await tx.tenant.findUnique({ where: { id: input.tenantId }, select: { id: true } }))) {
          throw new AppError(ErrorCode.VALIDATION_FAILED, 'no tenant with this id', 'tenantId');
        }
        if (await tx.alertRule.findUnique({ where: { name: input.name }, select: { id: true } })) {
          throw new AppError(ErrorCode.CONFLICT, 'an alert rule with this name exists', 'name');
        }
        const created = await tx.alertRule.create({
          data: {
            name: input.name, kind: input.kind, planId: input.planId, tenantId: input.tenantId, enabled: input.enabled,
            params: paramsOf(input.kind, input.params), repeatIntervalMinutes: input.repeatIntervalMinutes,
          },
        });
        if (input.tenantId) await this.caps.admitNew(tx, input.tenantId, 'alertRules');
        const view = toAlertRuleView(created);
        await writeAudit(tx, { actor, action: 'alert_rule.created', entityType: 'alert_rule', entityId: created.id, after: view });
        return view;
      })
      .catch(nameTaken);
  }
}

@Injectable()
export class UpdateAlertRuleUseCase {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  async execute(actor: string, ruleId: string, patch: AlertRulePatch): Promise<AlertRuleView> {
    return this.prisma
      .$transaction(async (tx) => {
        const before = found(await tx.alertRule.findUnique({ where: { id: ruleId } }), 'alert rule');
        const after = await tx.alertRule.update({
          where: { id: ruleId },
          data: {
            ...(patch.name !== undefined ? { name: patch.name } : {}),
            ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
            ...(patch.params !== undefined ? { params: paramsOf(before.kind, patch.params) } : {}),
            ...(patch.repeatIntervalMinutes !== undefined ? { repeatIntervalMinutes: patch.repeatIntervalMinutes } : {}),
          },
        });
        if (before.enabled && !after.enabled) await closeOpenAlerts(tx, ruleId);
        const view = toAlertRuleView(after);
        await writeAudit(tx, { actor, action: 'alert_rule.updated', entityType: 'alert_rule', entityId: ruleId, before: toAlertRuleView(before), after: view });
        return view;
      })
      .catch(nameTaken);
  }
}

/** Deletes a rule; its alerts stay in the history (without their rule) until retention. */
@Injectable()
export class DeleteAlertRuleUseCase {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  async execute(actor: string, ruleId: string): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const before = found(await tx.alertRule.findUnique({ where: { id: ruleId } }), 'alert rule');
      await closeOpenAlerts(tx, ruleId);
      await tx.alertRule.delete({ where: { id: ruleId } });
      await writeAudit(tx, { actor, action: 'alert_rule.deleted', entityType: 'alert_rule', entityId: ruleId, before: toAlertRuleView(before) });
    });
  }
}
