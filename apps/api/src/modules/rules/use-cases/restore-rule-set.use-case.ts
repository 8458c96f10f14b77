import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode, parseSnapshot } from '@tollgate/domain';
import type { PrismaClient } from '@tollgate/db';
import { restoreSnapshot, takeSnapshot } from '@tollgate/rule-store';
import { writeAudit } from '../../../common/audit';
import { PRISMA } from '../../../infra/infra.module';
import { RuleChangeService } from '../rule-change.service';

/**
 * Rolls back to an earlier version: its plans, limits and tenant plan assignments are written back and
 * compiled as a NEW version (numbers only grow, so every node moves forward to it). Keys are not touched:
 * a rollback never revives a revoked key.
 */
@Injectable()
export class RestoreRuleSetUseCase {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    private readonly changes: RuleChangeService,
  ) {}

  async execute(actor: string, version: number): Promise<{ ruleVersion: number; restoredFrom: number }> {
    const row = await this.prisma.ruleSetVersion.findUnique({ where: { version }, select: { source: true } });
    if (!row) throw new AppError(ErrorCode.NOT_FOUND, 'rule set version not found');
    const snapshot = parseSnapshot(row.source);
    if (!snapshot) throw new AppError(ErrorCode.CONFLICT, `version ${version} was written before versions kept what they were compiled from; it cannot be restored`);
    const { ruleVersion } = await this.changes.commit(actor, async (tx) => {
      const before = await takeSnapshot(tx);
      await restoreSnapshot(tx, snapshot);
      await writeAudit(tx, { actor, action: 'rule_set.restored', entityType: 'rule_set', entityId: String(version), before, after: snapshot });
    });
    return { ruleVersion, restoredFrom: version };
  }
}
