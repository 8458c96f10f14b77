import type { PrismaClient } from '@tollgate/db';
import { createRedisClient, type RedisClient, type RedisTarget } from '@tollgate/nest-infra';
import {
  attemptJobId,
  deleteExpiredWebhookRows,
  DestinationGuard,
  dueAttempts,
  parseAllowedDestinations,
  parseEncryptionKeys,
  type Resolver,
  SecretBox,
  SmtpSender,
  systemClock,
  systemResolver,
  type WebhookClock,
  WebhookDeliverer,
} from '@tollgate/webhooks';
import { type Job, Queue, Worker } from 'bullmq';

export const WEBHOOKS_QUEUE = 'webhooks';
export const WEBHOOK_DELIVERY_QUEUE = 'webhook-deliveries';
export const DISPATCH_JOB = 'webhook-dispatch';
export const RETENTION_JOB = 'webhook-retention';
export const ATTEMPT_JOB = 'webhook-attempt';

export interface WebhookRunnerSettings {
  encryptionKeys: string;
  allowedDestinations: string;
  dispatchEveryMs: number;
  timeoutMs: number;
  concurrency: number;
  lockMs: number;
  retentionDays: number;
  /** The `email` channel's SMTP server (may hold a password: never logged) and From; '' : e-mail attempts fail. */
  smtpUrl?: string;
  smtpFrom?: string;
}

export interface WebhookRunnerDeps {
  prisma: PrismaClient;
  redis: RedisTarget;
  prefix: string;
  settings: WebhookRunnerSettings;
  log: { log(message: string): void; warn(message: string): void; error(message: string): void };
  clock?: WebhookClock;
  resolver?: Resolver;
}

/**
 * Webhook delivery in the worker (docs/adr/0017-webhooks.md), both channels: signed POSTs and e-mail (over SMTP_URL). Two queues: `webhooks` runs the dispatcher (every
 * `dispatchEveryMs`, once across all workers) and retention (hourly); `webhook-deliveries` runs one job per attempt.
 * The dispatcher reads the due deliveries from Postgres, the outbox `publishEvent` writes into, and queues each attempt
 * under a deterministic job id: read twice, it is queued once; lost by the queue, it is queued again on the next read.
 * A worker killed mid-attempt leaves its job to be found stalled after `lockMs` and run again, with the same webhook-id.
 */
export class WebhookRunner {
  private readonly connection: RedisClient;
  private readonly queue: Queue;
  private readonly deliveries: Queue;
  private workers: Worker[] = [];
  private readonly clock: WebhookClock;
  private readonly smtp: SmtpSender | undefined;
  readonly deliverer: WebhookDeliverer;

  constructor(private readonly deps: WebhookRunnerDeps) {
    this.clock = deps.clock ?? systemClock;
    // BullMQ's blocking connections must retry forever; it duplicates this one for its workers.
    this.connection = createRedisClient(deps.redis, { maxRetriesPerRequest: null, lazyConnect: true });
    const streams = { events: { maxLen: 1000 } };
    this.queue = new Queue(WEBHOOKS_QUEUE, { connection: this.connection, prefix: deps.prefix, streams });
    this.deliveries = new Queue(WEBHOOK_DELIVERY_QUEUE, { connection: this.connection, prefix: deps.prefix, streams });
    const secrets = new SecretBox(deps.prisma, parseEncryptionKeys(deps.settings.encryptionKeys));
    const guard = new DestinationGuard(parseAllowedDestinations(deps.settings.allowedDestinations), deps.resolver ?? systemResolver);
    const { smtpUrl, smtpFrom, timeoutMs } = deps.settings;
    this.smtp = smtpUrl ? new SmtpSender({ url: smtpUrl, from: smtpFrom ?? 'Tollgate <tollgate@localhost.localdomain>', timeoutMs }) : undefined;
    this.deliverer = new WebhookDeliverer(deps.prisma, secrets, guard, {
      timeoutMs,
      clock: this.clock,
      email: this.smtp,
      // The owner sees the reason on the endpoint (the API); the operator sees it here. No URL, no secret in the line.
      onDisabled: (endpointId, reason) => deps.log.warn(`webhook endpoint ${endpointId} disabled: ${reason}`),
    });
  }

  async start(): Promise<void> {
    const { settings, prefix } = this.deps;
    const jobs = { removeOnComplete: true, removeOnFail: { count: 100 } };
    await this.queue.setGlobalConcurrency(1);
    await this.queue.upsertJobScheduler(DISPATCH_JOB, { every: settings.dispatchEveryMs }, { name: DISPATCH_JOB, opts: jobs });
    await this.queue.upsertJobScheduler(RETENTION_JOB, { every: 3_600_000 }, { name: RETENTION_JOB, opts: jobs });
    const lock = { lockDuration: settings.lockMs, stalledInterval: settings.lockMs };
    this.workers = [
      new Worker(WEBHOOKS_QUEUE, (job) => this.housekeeping(job), { connection: this.connection, prefix, concurrency: 1, ...lock }),
      new Worker(WEBHOOK_DELIVERY_QUEUE, (job: Job<{ deliveryId: string; attempt: number }>) => this.deliverer.deliver(job.data.deliveryId, job.data.attempt), {
        connection: this.connection,
        prefix,
        concurrency: settings.concurrency,
        ...lock,
      }),
    ];
    for (const worker of this.workers) {
      worker.on('error', (err) => this.deps.log.error(`webhook queue: ${err.message}`));
      // A job that threw (Postgres away while recording) is removed and queued again by the dispatcher: said once here.
      worker.on('failed', (job, err) => this.deps.log.warn(`webhook job ${job?.name ?? '?'} ${job?.id ?? ''} failed, to be run again: ${err.message.slice(0, 200)}`));
    }
  }

  /** Queues every due attempt now (the dispatcher's tick); answers how many were due. */
  async dispatch(): Promise<number> {
    const due = await dueAttempts(this.deps.prisma, this.clock.now());
    if (due.length === 0) return 0;
    // A job removed once run (delivered, retried later, failed): its row decides what comes next, never the queue.
    await this.deliveries.addBulk(
      due.map((d) => ({ name: ATTEMPT_JOB, data: d, opts: { jobId: attemptJobId(d), removeOnComplete: true, removeOnFail: true } })),
    );
    return due.length;
  }

  private async housekeeping(job: Job): Promise<unknown> {
    if (job.name === DISPATCH_JOB) return this.dispatch();
    if (job.name === RETENTION_JOB) {
      const deleted = await deleteExpiredWebhookRows(this.deps.prisma, this.clock.now(), this.deps.settings.retentionDays);
      this.deps.log.log(`webhook retention: deleted ${deleted.attempts} attempts and ${deleted.events} events`);
      return deleted;
    }
    return null;
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()));
    await this.queue.close();
    await this.deliveries.close();
    this.smtp?.close();
    this.connection.disconnect();
  }
}
