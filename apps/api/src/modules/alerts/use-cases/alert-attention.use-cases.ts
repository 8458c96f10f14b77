import { Inject, Injectable } from '@nestjs/common';
import { type AlertRuleView, type AlertSilence, type AlertView, AppError, ErrorCode, MAX_REPEAT_INTERVAL_MINUTES } from '@tollgate/domain';
import type { PrismaClient } from '@tollgate/db';
import { writeAudit } from '../../../common/audit';
import { found } from '../../../common/found';
import { PRISMA } from '../../../infra/infra.module';
import { toAlertRuleView, toAlertView } from '../alert-views';

/*
 * What a person does about alerts that keep coming (docs/adr/0018-alerts.md): acknowledge one (seen: no repeat
 * notifications until it resolves) or silence a rule until a time (no notification of any of its alerts meanwhile).
 * Each is audited in its transaction; the worker reads both on its next evaluation.
 */

/** Marks a firing alert seen by the caller; one already acknowledged stays as it was (who saw it first). */
@Injectable()
export class AcknowledgeAlertUseCase {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  async execute(actor: string, alertId: bigint): Promise<AlertView> {
    return this.prisma.$transaction(async (tx) => {
      const before = found(await tx.alert.findUnique({ where: { id: alertId } }), 'alert');
      if (before.acknowledgedAt) return toAlertView(before);
      if (before.state !== 'firing') throw new AppError(ErrorCode.CONFLICT, `only a firing alert can be acknowledged; this one is ${before.state}`);
      const moved = await tx.alert.updateMany({ where: { id: alertId, state: 'firing', acknowledgedAt: null }, data: { acknowledgedAt: new Date(), acknowledgedBy: actor } });
      const after = await tx.alert.findUniqueOrThrow({ where: { id: alertId } });
      if (moved.count === 0) {
        // Resolved or acknowledged meanwhile by an evaluation or another person: say which.
        if (after.acknowledgedAt) return toAlertView(after);
        throw new AppError(ErrorCode.CONFLICT, `only a firing alert can be acknowledged; this one is ${after.state}`);
      }
      const view = toAlertView(after);
      await writeAudit(tx, { actor, action: 'alert.acknowledged', entityType: 'alert', entityId: String(alertId), before: toAlertView(before), after: view });
      return view;
    });
  }
}

const MINUTE_MS = 60_000;

/** Silences a rule until a time in the next week (a new silence replaces the one in force), or ends its silence. */
@Injectable()
export class SilenceAlertRuleUseCase {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  async silence(actor: string, ruleId: string, input: AlertSilence): Promise<AlertRuleView> {
    const now = new Date();
    if (input.until <= now) throw new AppError(ErrorCode.VALIDATION_FAILED, 'must be in the future', 'until');
    if (input.until.getTime() - now.getTime() > MAX_REPEAT_INTERVAL_MINUTES * MINUTE_MS) throw new AppError(ErrorCode.VALIDATION_FAILED, 'must be within a week', 'until');
    return this.change(actor, ruleId, 'alert_rule.silenced', { silencedUntil: input.until, silencedBy: actor, silenceReason: input.reason ?? null }, now);
  }

  unsilence(actor: string, ruleId: string): Promise<AlertRuleView> {
    return this.change(actor, ruleId, 'alert_rule.unsilenced', { silencedUntil: null, silencedBy: null, silenceReason: null }, new Date());
  }

  private change(actor: string, ruleId: string, action: string, data: { silencedUntil: Date | null; silencedBy: string | null; silenceReason: string | null }, now: Date): Promise<AlertRuleView> {
    return this.prisma.$transaction(async (tx) => {
      const before = found(await tx.alertRule.findUnique({ where: { id: ruleId } }), 'alert rule');
      // Ending a silence that is not in force changes nothing, and is not audited.
      if (data.silencedUntil === null && !(before.silencedUntil && before.silencedUntil > now)) return toAlertRuleView(before, now);
      const after = await tx.alertRule.update({ where: { id: ruleId }, data });
      const view = toAlertRuleView(after, now);
      await writeAudit(tx, { actor, action, entityType: 'alert_rule', entityId: ruleId, before: toAlertRuleView(before, now), after: view });
      return view;
    });
  }
}
