import type { JobSchedulerTemplateOptions } from 'bullmq';
import type { WorkerConfig } from '../config/config';
import { ALERT_JOB_OPTIONS, ALERT_RETENTION_JOB, ALERTS_QUEUE, EVALUATE_JOB } from '../alerts/alerts.processor';
import { RETENTION_JOB as USAGE_RETENTION_JOB, ROLLUP_JOB, USAGE_JOB_OPTIONS, USAGE_QUEUE } from '../usage/usage.processor';
import { FORMER_DISPATCH_JOB, RETENTION_JOB as WEBHOOK_RETENTION_JOB, WEBHOOK_HOUSEKEEPING_OPTIONS, WEBHOOKS_QUEUE } from '../webhooks/webhook-retention.processor';

/** One job a scheduler adds every `everyMs` to `queue`; its id is also the name of its jobs. */
export interface JobSchedule {
  queue: string;
  id: string;
  everyMs: number;
  template: JobSchedulerTemplateOptions;
}

/** A queue's settings that live in Redis beside its jobs. */
export interface QueueSettings {
  queue: string;
  /** Jobs of this queue running at once across every worker. */
  globalConcurrency: number;
}

export interface WorkerSchedules {
  queues: QueueSettings[];
  schedules: JobSchedule[];
  /** Schedulers of earlier versions, removed at start where Redis still holds them. */
  retired: { queue: string; id: string }[];
}

const HOURLY = 3_600_000;

/**
 * Every schedule of the worker and the settings of the queues they feed: the one list ScheduleKeeper keeps in Redis.
 * Each housekeeping queue runs one job at a time across every worker: a rollup or an evaluation longer than its
 * interval is not joined by a second one doing the same work again (which would be correct, every write being
 * idempotent or conditional, but twice the work). A worker killed midway holds its job until BullMQ finds it stalled.
 * Webhook delivery has no schedule: each worker's DeliveryPump claims due deliveries from Postgres by itself.
 */
export function workerSchedules(config: WorkerConfig): WorkerSchedules {
  return {
    queues: [USAGE_QUEUE, ALERTS_QUEUE, WEBHOOKS_QUEUE].map((queue) => ({ queue, globalConcurrency: 1 })),
    schedules: [
      // The rollup also writes the minutes not closed yet (USAGE_LIVE_EVERY_MS).
      { queue: USAGE_QUEUE, id: ROLLUP_JOB, everyMs: config.usage.rollupEveryMs, template: USAGE_JOB_OPTIONS },
      { queue: USAGE_QUEUE, id: USAGE_RETENTION_JOB, everyMs: HOURLY, template: USAGE_JOB_OPTIONS },
      { queue: ALERTS_QUEUE, id: EVALUATE_JOB, everyMs: config.alerts.evaluateEveryMs, template: ALERT_JOB_OPTIONS },
      { queue: ALERTS_QUEUE, id: ALERT_RETENTION_JOB, everyMs: HOURLY, template: ALERT_JOB_OPTIONS },
      { queue: WEBHOOKS_QUEUE, id: WEBHOOK_RETENTION_JOB, everyMs: HOURLY, template: WEBHOOK_HOUSEKEEPING_OPTIONS },
    ],
    retired: [{ queue: WEBHOOKS_QUEUE, id: FORMER_DISPATCH_JOB }],
  };
}
