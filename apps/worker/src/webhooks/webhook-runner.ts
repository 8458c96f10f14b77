import type { PrismaClient } from '@tollgate/db';
import {
  ConnectionPools,
  DeliveryPump,
  DestinationGuard,
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
import type { LoopSource, WatchedLoop } from '../health/worker-health';

/** The delivery loop's name on the worker's `/health`. */
export const DELIVERY_LOOP = 'webhook-delivery';

export interface WebhookRunnerSettings {
  encryptionKeys: string;
  allowedDestinations: string;
  /** How often an idle worker looks for due deliveries in Postgres. */
  dispatchEveryMs: number;
  timeoutMs: number;
  /** Attempts one worker makes at once. */
  concurrency: number;
  /** The margin after an attempt's timeout before its claim ends and another worker may retry it (a worker killed). */
  lockMs: number;
  /** The `email` channel's SMTP server (may hold a password: never logged) and From; '' : e-mail attempts fail. */
  smtpUrl?: string;
  smtpFrom?: string;
}

export interface WebhookRunnerDeps {
  prisma: PrismaClient;
  settings: WebhookRunnerSettings;
  log: { log(message: string): void; warn(message: string): void; error(message: string): void };
  clock?: WebhookClock;
  resolver?: Resolver;
}

/**
 * Webhook delivery in the worker (docs/adr/0017-webhooks.md), both channels: signed POSTs and e-mail (over SMTP_URL).
 * Each worker claims due deliveries straight from Postgres (the outbox `publishEvent` writes into) in batches, logs
 * each attempt before it is sent, makes them `concurrency` at a time over kept-alive connections and writes their
 * outcomes in groups (`DeliveryPump`): delivery goes on without Redis (which carries only the hourly retention job,
 * WebhookRetentionProcessor). A worker killed mid-attempt leaves the attempt in the log without an outcome; its delivery is claimed
 * again once the claim's lease (twice `timeoutMs`, and `lockMs`) ends, and retried with the same webhook-id.
 */
export class WebhookRunner implements LoopSource {
  /** The delivery loop as the worker's health watches it: a claim round every WEBHOOK_DISPATCH_EVERY_MS. */
  readonly loop: WatchedLoop;
  private roundListener: ((error: string | null) => void) | null = null;
  private readonly clock: WebhookClock;
  private readonly smtp: SmtpSender | undefined;
  private readonly connections: ConnectionPools;
  private readonly pump: DeliveryPump;

  constructor(private readonly deps: WebhookRunnerDeps) {
    this.clock = deps.clock ?? systemClock;
    const secrets = new SecretBox(deps.prisma, parseEncryptionKeys(deps.settings.encryptionKeys));
    const guard = new DestinationGuard(parseAllowedDestinations(deps.settings.allowedDestinations), deps.resolver ?? systemResolver);
    const { smtpUrl, smtpFrom, timeoutMs, concurrency, lockMs, dispatchEveryMs } = deps.settings;
    this.smtp = smtpUrl ? new SmtpSender({ url: smtpUrl, from: smtpFrom ?? 'Tollgate <tollgate@localhost.localdomain>', timeoutMs }) : undefined;
    this.connections = new ConnectionPools(concurrency);
    this.loop = { name: DELIVERY_LOOP, everyMs: dispatchEveryMs, round: 'claim round' };
    const deliverer = new WebhookDeliverer(secrets, guard, { timeoutMs, email: this.smtp, connections: this.connections });
    this.pump = new DeliveryPump(deps.prisma, deliverer, {
      concurrency,
      pollEveryMs: dispatchEveryMs,
      timeoutMs,
      graceMs: lockMs,
      clock: this.clock,
      // The owner sees the reason on the endpoint (the API); the operator sees it here. No URL, no secret in the line.
      onDisabled: (endpointId, reason) => deps.log.warn(`webhook endpoint ${endpointId} disabled: ${reason}`),
      onError: (message) => deps.log.error(message),
      onRound: (error) => this.roundListener?.(error),
    });
  }

  /** `listener` hears of each round of the delivery loop (WorkerHealth). */
  onRound(listener: (error: string | null) => void): void {
    this.roundListener = listener;
  }

  start(): void {
    this.pump.start();
  }

  /** Stops delivering (the attempts in flight get at most `waitMs` to end and be logged), then closes everything. */
  async close(waitMs?: number): Promise<void> {
    if (!(await this.pump.stop(waitMs))) {
      this.deps.log.warn(`webhook attempts still in flight after ${waitMs} ms are left without an outcome in the log; retried when their claim ends`);
    }
    this.connections.close();
    this.smtp?.close();
  }
}
