import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { WORKER_CONFIG, type WorkerConfig } from '../config/config';
import { REPUBLISH_RULES_JOB, RULES_QUEUE } from '../queues';

/**
 * Registers the repeatable re-publish job. `upsertJobScheduler` is idempotent: however many workers
 * start together, there is one scheduler with this id.
 */
@Injectable()
export class RulesScheduler implements OnApplicationBootstrap {
  constructor(
    @InjectQueue(RULES_QUEUE) private readonly queue: Queue,
    @Inject(WORKER_CONFIG) private readonly config: WorkerConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.upsertJobScheduler(
      REPUBLISH_RULES_JOB,
      { every: this.config.rules.republishEveryMs },
      { name: REPUBLISH_RULES_JOB, opts: { removeOnComplete: 100, removeOnFail: 100 } },
    );
  }
}
