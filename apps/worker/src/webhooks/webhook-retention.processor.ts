import { Inject, Injectable, Logger } from '@nestjs/common';
import type { PrismaClient } from '@tollgate/db';
import { deleteExpiredWebhookRows, systemClock } from '@tollgate/webhooks';
import type { Job } from 'bullmq';
import { WORKER_CONFIG, type WorkerConfig } from '../config/config';
import { PRISMA } from '../infra.module';
import type { JobProcessor, ProcessorOptions } from '../lifecycle/job-processor';

export const WEBHOOKS_QUEUE = 'webhooks';
export const RETENTION_JOB = 'webhook-retention';
/** The scheduler of earlier versions, which queued each attempt as a job: removed where it is still registered. */
export const FORMER_DISPATCH_JOB = 'webhook-dispatch';
/** The retention job's options (scheduled by ScheduleKeeper, schedules/job-schedules.ts). */
export const WEBHOOK_HOUSEKEEPING_OPTIONS = { removeOnComplete: true, removeOnFail: { count: 100 } };

/**
 * Runs the `webhooks` queue's one job, the hourly retention of attempts and events. Redis carries nothing else of
 * webhooks: delivery claims its work from Postgres (WebhookRunner) and goes on without it.
 */
@Injectable()
export class WebhookRetentionProcessor implements JobProcessor {
  readonly queue = WEBHOOKS_QUEUE;
  readonly options: ProcessorOptions;
  private readonly log = new Logger('Webhooks');

  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(WORKER_CONFIG) private readonly config: WorkerConfig,
  ) {
    const { lockMs } = config.webhooks;
    this.options = { concurrency: 1, lockDuration: lockMs, stalledInterval: lockMs };
  }

  async process(job: Job): Promise<unknown> {
    if (job.name === RETENTION_JOB) {
      const deleted = await deleteExpiredWebhookRows(this.prisma, systemClock.now(), this.config.webhooks.retentionDays);
      this.log.log(`webhook retention: deleted ${deleted.attempts} attempts and ${deleted.events} events`);
      return deleted;
    }
    this.log.warn('a job of an unknown name on the webhooks queue was skipped');
    return null;
  }
}
