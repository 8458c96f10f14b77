import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode, parseSnapshot, type RuleSetChange, type RuleSnapshot } from '@tollgate/domain';
import type { PrismaClient } from '@tollgate/db';
import { previewRuleSetVersion, restoreSnapshot, RULE_SET_TRANSACTION, takeSnapshot } from '@tollgate/rule-store';
import { summarizeChanges } from '@tollgate/rules';
import { writeAudit } from '../../../common/audit';
import { PRISMA } from '../../../infra/infra.module';
import { RuleChangeService } from '../rule-change.service';

/** Thrown inside a preview's transaction to roll the restore back once what it would change is known. */
class PreviewRollback extends Error {
  constructor(readonly preview: { current: number | null; changes: RuleSetChange[] }) {
    super('preview rolled back');
  }
}

/**
 * Rolls back to an earlier version: its plans, limits and tenant plan assignments are written back and
 * compiled as a NEW version (numbers only grow, so every node moves forward to it). Keys are not touched:
 * a rollback never revives a revoked key. Its answer, and its preview beforehand, list what it undoes: the
 * changes from the rules in force back to that version's.
 */
@Injectable()
export class RestoreRuleSetUseCase {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    private readonly changes: RuleChangeService,
  ) {}

  async execute(actor: string, version: number) {
    const snapshot = await this.snapshotOf(version);
    const { ruleVersion, published, changes } = await this.changes.commit(actor, async (tx) => {
      const before = await takeSnapshot(tx);
      await restoreSnapshot(tx, snapshot);
      await writeAudit(tx, { actor, action: 'rule_set.restored', entityType: 'rule_set', entityId: String(version), before, after: snapshot });
    });
    return { ruleVersion, restoredFrom: version, published, summary: summarizeChanges(changes), undoes: changes };
  }

  /**
   * What restoring `version` would undo now: the restore is run in a transaction that is rolled back, so the preview
   * refuses what the restore would refuse (404, 409, an invalid rule set) and lists exactly what it would change.
   */
  async preview(version: number) {
    const snapshot = await this.snapshotOf(version);
    const { current, changes } = await this.prisma
      .$transaction(async (tx) => {
        await restoreSnapshot(tx, snapshot);
        throw new PreviewRollback(await previewRuleSetVersion(tx));
      }, RULE_SET_TRANSACTION)
      .catch((err: unknown) => {
        if (err instanceof PreviewRollback) return err.preview;
        throw err;
      });
    if (current === null) throw new AppError(ErrorCode.NOT_FOUND, 'no rule set version yet');
    return { version, current, summary: summarizeChanges(changes), undoes: changes };
  }

  private async snapshotOf(version: number): Promise<RuleSnapshot> {
    const row = await this.prisma.ruleSetVersion.findUnique({ where: { version }, select: { source: true } });
    if (!row) throw new AppError(ErrorCode.NOT_FOUND, 'rule set version not found');
    const snapshot = parseSnapshot(row.source);
    if (!snapshot) throw new AppError(ErrorCode.CONFLICT, `version ${version} was written before versions kept what they were compiled from; it cannot be restored`);
    return snapshot;
  }
}
