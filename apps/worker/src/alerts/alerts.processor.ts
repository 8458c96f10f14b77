import { Inject, Injectable, Logger } from '@nestjs/common';
import type { PrismaClient } from '@tollgate/db';
import type { Clock } from '@tollgate/limiter';
import type { Job, JobSchedulerTemplateOptions } from 'bullmq';
import { WORKER_CONFIG, type WorkerConfig } from '../config/config';
import { PRISMA } from '../infra.module';
import type { JobProcessor } from '../lifecycle/job-processor';
import { ConditionEvaluator } from './conditions';
import { QuotaEvaluator } from './quota-thresholds';

export const ALERTS_QUEUE = 'alerts';
export const EVALUATE_JOB = 'alerts-evaluate';
export const ALERT_RETENTION_JOB = 'alerts-retention';
/** The clock of alert evaluation (tests inject their own). */
export const ALERT_CLOCK = Symbol('ALERT_CLOCK');

/**
 * Bounded retention of completed and failed jobs; a failed evaluation is retried soon (the next tick would run it anyway).
 * Scheduled by ScheduleKeeper (schedules/job-schedules.ts): evaluation every `ALERTS_EVALUATE_EVERY_MS`, retention hourly.
 */
export const ALERT_JOB_OPTIONS: JobSchedulerTemplateOptions = {
  removeOnComplete: { count: 100 },
  removeOnFail: { count: 1000, age: 7 * 24 * 3600 },
  attempts: 2,
  backoff: { type: 'fixed', delay: 1_000 },
};

const RETENTION_BATCH = 10_000;

/** Runs the alert jobs: every kind's evaluation, and the deletion of resolved alerts past retention. */
@Injectable()
export class AlertsProcessor implements JobProcessor {
  readonly queue = ALERTS_QUEUE;
  private readonly log = new Logger(AlertsProcessor.name);

  constructor(
    private readonly quota: QuotaEvaluator,
    private readonly conditions: ConditionEvaluator,
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(ALERT_CLOCK) private readonly clock: Clock,
    @Inject(WORKER_CONFIG) private readonly config: WorkerConfig,
  ) {}

  async process(job: Job): Promise<unknown> {
    if (job.name === EVALUATE_JOB) return this.evaluate();
    if (job.name === ALERT_RETENTION_JOB) {
      const deleted = await deleteOldAlerts(this.prisma, new Date(this.clock.now() - this.config.alerts.retentionDays * 86_400_000));
      this.log.debug(`alert retention: deleted ${deleted} resolved alerts`);
      return { deleted };
    }
    this.log.warn('a job of an unknown name on the alerts queue was skipped');
    return null;
  }

  /** Each kind in turn; one failing does not keep the others from running (the job fails after them, and is retried). */
  private async evaluate(): Promise<unknown> {
    const [quota, conditions] = await Promise.allSettled([this.quota.run(), this.conditions.run()]);
    for (const r of [quota, conditions]) if (r.status === 'rejected') throw r.reason;
    const q = (quota as PromiseFulfilledResult<Awaited<ReturnType<QuotaEvaluator['run']>>>).value;
    const c = (conditions as PromiseFulfilledResult<Awaited<ReturnType<ConditionEvaluator['run']>>>).value;
    // Counts only: tenant ids and names stay out of the logs.
    this.log.debug(`alerts: ${q.peeked} limits of ${q.tenants} tenants peeked, ${q.fired} threshold alerts, ${q.reset} windows ended; 429 rate ${JSON.stringify(c.deniedRate)}, degraded ${JSON.stringify(c.platformDegraded)}`);
    if (q.skippedRules + c.skippedRules > 0) this.log.warn(`${q.skippedRules + c.skippedRules} alert rules have params that no longer validate and were skipped`);
    return { quota: q, conditions: c };
  }
}

/** Deletes resolved alerts resolved before `cutoff`, 10,000 at a time (their crossings go with them). Open alerts stay. */
export async function deleteOldAlerts(prisma: PrismaClient, cutoff: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await prisma.$executeRaw`
      DELETE FROM alerts WHERE id IN (SELECT id FROM alerts WHERE state = 'resolved' AND resolved_at < ${cutoff} LIMIT ${RETENTION_BATCH})`;
    total += n;
    if (n < RETENTION_BATCH) return total;
  }
}
