import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@tollgate/domain';
import type { Prisma, PrismaClient } from '@tollgate/db';
import { createRuleSetVersion } from '@tollgate/rule-store';
import { linkAuditToVersion, writeAudit } from '../../common/audit';
import { PRISMA } from '../../infra/infra.module';
import { MetricsService } from '../metrics/metrics.service';
import { RulePublisher } from './rule-publisher.service';

/**
 * The one way a control-plane change is committed: the change, its audit record and the new rule set version
 * in one transaction (the audit record names the version), then the version is handed to every API node. A change
 * whose rule set does not compile is rolled back whole (the version in force stays), and the refusal itself is
 * audited and counted.
 */
@Injectable()
export class RuleChangeService {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    private readonly publisher: RulePublisher,
    private readonly metrics: MetricsService,
  ) {}

  async commit<T>(actor: string, change: (tx: Prisma.TransactionClient) => Promise<T>): Promise<{ result: T; ruleVersion: number }> {
    try {
      const { result, ruleSet } = await this.prisma.$transaction(async (tx) => {
        const result = await change(tx);
        const ruleSet = await createRuleSetVersion(tx, actor);
        await linkAuditToVersion(tx, ruleSet.version);
        return { result, ruleSet };
      });
      await this.publisher.publish(ruleSet);
      return { result, ruleVersion: ruleSet.version };
    } catch (err) {
      if (err instanceof AppError && err.code === ErrorCode.RULE_SET_INVALID) await this.recordRejection(actor, err);
      throw err;
    }
  }

  private async recordRejection(actor: string, err: AppError): Promise<void> {
    this.metrics.ruleSetRejections.inc();
    await this.prisma.$transaction((tx) =>
      writeAudit(tx, { actor, action: 'rule_set.rejected', entityType: 'rule_set', entityId: '-', after: { reason: err.message } }),
    );
  }
}
