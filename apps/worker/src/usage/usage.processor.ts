import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { PostgresUsageWriter, UsageRollup } from '@tollgate/usage';
import type { Job, JobSchedulerTemplateOptions, Queue } from 'bullmq';
import { WORKER_CONFIG, type WorkerConfig } from '../config/config';

export const USAGE_QUEUE = 'usage';
export const ROLLUP_JOB = 'usage-rollup';
export const RETENTION_JOB = 'usage-retention';

/**
 * Completed and failed jobs are kept in bounded numbers (a failed one for a week, to be looked at); a failed run is
 * tried again with back-off before the scheduler's next tick would anyway.
 */
export const USAGE_JOB_OPTIONS: JobSchedulerTemplateOptions = {
  removeOnComplete: { count: 100 },
  removeOnFail: { count: 1000, age: 7 * 24 * 3600 },
  attempts: 3,
  backoff: { type: 'exponential', delay: 2_000 },
};

/**
 * The usage jobs' schedulers: the rollup every `USAGE_ROLLUP_EVERY_MS`, retention every hour. A scheduler is keyed by
 * its id, so every worker that starts upserts the same two, however many start together.
 */
@Injectable()
export class UsageSchedules implements OnApplicationBootstrap {
  constructor(
    @InjectQueue(USAGE_QUEUE) private readonly queue: Queue,
    @Inject(WORKER_CONFIG) private readonly config: WorkerConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // One usage job at a time across every worker: a rollup that takes longer than the interval is not joined by a
    // second one writing the same minutes again (which would be correct, the writer takes one minute at a time, but
    // twice the work). A worker killed midway holds its job until BullMQ finds it stalled, about 30 s.
    await this.queue.setGlobalConcurrency(1);
    await this.queue.upsertJobScheduler(ROLLUP_JOB, { every: this.config.usage.rollupEveryMs }, { name: ROLLUP_JOB, opts: USAGE_JOB_OPTIONS });
    await this.queue.upsertJobScheduler(RETENTION_JOB, { every: 3_600_000 }, { name: RETENTION_JOB, opts: USAGE_JOB_OPTIONS });
  }
}

/** Runs the usage jobs: the rollup of closed minutes into Postgres, and retention. */
@Processor(USAGE_QUEUE)
export class UsageProcessor extends WorkerHost {
  private readonly log = new Logger(UsageProcessor.name);

  constructor(
    private readonly rollup: UsageRollup,
    private readonly writer: PostgresUsageWriter,
    @Inject(WORKER_CONFIG) private readonly config: WorkerConfig,
  ) {
    super();
  }

  async process(job: Job): Promise<unknown> {
    if (job.name === ROLLUP_JOB) {
      const run = await this.rollup.run();
      // Counts only: tenant ids and the hashes' contents stay out of the logs.
      this.log.debug(`usage rollup: ${run.minutes} minutes through ${run.rolledThrough ?? 'none'} (and ${run.liveMinutes} open), ${run.tenants} tenant hashes, ${run.rows} rows, ${run.skipped} counts left out`);
      return run;
    }
    if (job.name === RETENTION_JOB) {
      const deleted = await this.writer.deleteExpired(new Date(), this.config.usage.retention);
      this.log.debug(`usage retention: deleted ${deleted.minutes} minute, ${deleted.hours} hour and ${deleted.days} day rows, ${deleted.keyMinutes + deleted.keyHours} of keys, ${deleted.totals} of totals`);
      return deleted;
    }
    this.log.warn('a job of an unknown name on the usage queue was skipped');
    return null;
  }
}
