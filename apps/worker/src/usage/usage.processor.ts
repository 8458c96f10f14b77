import { Inject, Injectable, Logger } from '@nestjs/common';
import { PostgresUsageWriter, UsageRollup } from '@tollgate/usage';
import type { Job, JobSchedulerTemplateOptions } from 'bullmq';
import { WORKER_CONFIG, type WorkerConfig } from '../config/config';
import type { JobProcessor } from '../lifecycle/job-processor';

export const USAGE_QUEUE = 'usage';
export const ROLLUP_JOB = 'usage-rollup';
export const RETENTION_JOB = 'usage-retention';

/**
 * Completed and failed jobs are kept in bounded numbers (a failed one for a week, to be looked at); a failed run is
 * tried again with back-off before the scheduler's next tick would anyway. Scheduled by ScheduleKeeper
 * (schedules/job-schedules.ts): the rollup every `USAGE_ROLLUP_EVERY_MS`, retention every hour.
 */
export const USAGE_JOB_OPTIONS: JobSchedulerTemplateOptions = {
  removeOnComplete: { count: 100 },
  removeOnFail: { count: 1000, age: 7 * 24 * 3600 },
  attempts: 3,
  backoff: { type: 'exponential', delay: 2_000 },
};

/** Runs the usage jobs: the rollup of closed minutes into Postgres, and retention. */
@Injectable()
export class UsageProcessor implements JobProcessor {
  readonly queue = USAGE_QUEUE;
  private readonly log = new Logger(UsageProcessor.name);

  constructor(
    private readonly rollup: UsageRollup,
    private readonly writer: PostgresUsageWriter,
    @Inject(WORKER_CONFIG) private readonly config: WorkerConfig,
  ) {}

  async process(job: Job): Promise<unknown> {
    if (job.name === ROLLUP_JOB) {
      const run = await this.rollup.run();
      // Counts only: tenant ids and the hashes' contents stay out of the logs.
      this.log.debug(`usage rollup: ${run.minutes} minutes through ${run.rolledThrough ?? 'none'} (and ${run.liveMinutes} open), ${run.tenants} tenant hashes, ${run.rows} rows, ${run.skipped} counts left out`);
      return run;
    }
    if (job.name === RETENTION_JOB) {
      const deleted = await this.writer.deleteExpired(new Date(), this.config.usage.retention);
      this.log.debug(`usage retention: deleted ${deleted.minutes} minute, ${deleted.hours} hour and ${deleted.days} day rows, ${deleted.keyMinutes + deleted.keyHours} of keys, ${deleted.routeMinutes + deleted.routeHours + deleted.routeDays} of routes, ${deleted.totals} of totals`);
      return deleted;
    }
    this.log.warn('a job of an unknown name on the usage queue was skipped');
    return null;
  }
}
