import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger } from '@nestjs/common';
import type { PrismaClient } from '@tollgate/db';
import { ensureRuleSetPublished, RuleSetStore } from '@tollgate/rules';
import type { Job } from 'bullmq';
import { PRISMA } from '../infra.module';
import { RULES_QUEUE } from '../queues';

/**
 * Re-publishes the newest rule set version when Redis lost it (restart, flush) or a push after commit
 * failed, so API nodes always find the version Postgres says is current.
 */
@Processor(RULES_QUEUE)
export class RulesProcessor extends WorkerHost {
  private readonly log = new Logger(RulesProcessor.name);

  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    private readonly store: RuleSetStore,
  ) {
    super();
  }

  async process(_job: Job): Promise<{ version: number; republished: boolean }> {
    const before = await this.store.version();
    const version = await ensureRuleSetPublished(this.prisma, this.store, 'worker');
    const republished = before === null || before < version;
    if (republished) this.log.log(`re-published rule set v${version} (Redis had ${before ?? 'none'})`);
    return { version, republished };
  }
}
