import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@tollgate/domain';
import type { Prisma, PrismaClient } from '@tollgate/db';
import { type CommittedRuleSet, commitRuleSetVersion, RULE_SET_TRANSACTION } from '@tollgate/rule-store';
import { linkAuditToVersion, writeAudit } from '../../common/audit';
import { PRISMA } from '../../infra/infra.module';
import { MetricsService } from '../metrics/metrics.service';
import { RulePublisher } from './rule-publisher';

/**
 * The one way a control-plane change is committed: the change, its audit record and the new rule set version
 * in one transaction (the audit record names the version), then the version is handed to every API node. A change
 * whose rule set does not compile is rolled back whole (the version in force stays), and the refusal itself is
 * audited and counted. A change that leaves the rules as they are (a display name, a tenant's caps) is committed and
 * audited but publishes no version (ADR 0004): `ruleVersion` is then the version in force, and the audit record
 * names none.
 *
 * A node commits its changes one after another: they would wait for each other on the version lock anyway, and
 * waiting there each held a pooled connection, so that twenty changes at once left the node's other requests (and
 * the changes queued behind them) no connection within its connect timeout: 500s.
 */
@Injectable()
export class RuleChangeService {
  /** The end of the last change queued on this node (settled either way). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    private readonly publisher: RulePublisher,
    private readonly metrics: MetricsService,
  ) {}

  commit<T>(actor: string, change: (tx: Prisma.TransactionClient) => Promise<T>): Promise<{ result: T; ruleVersion: number } & Omit<CommittedRuleSet, 'ruleSet'>> {
    const run = this.queue.then(() => this.commitNow(actor, change));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async commitNow<T>(actor: string, change: (tx: Prisma.TransactionClient) => Promise<T>): Promise<{ result: T; ruleVersion: number } & Omit<CommittedRuleSet, 'ruleSet'>> {
    try {
      const { result, committed } = await this.prisma.$transaction(async (tx) => {
        const result = await change(tx);
        const committed = await commitRuleSetVersion(tx, actor);
        if (committed.published) await linkAuditToVersion(tx, committed.ruleSet.version);
        return { result, committed };
      }, RULE_SET_TRANSACTION);
      if (committed.published) await this.publisher.publish(committed.ruleSet);
      return { result, ruleVersion: committed.ruleSet.version, published: committed.published, changes: committed.changes };
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
