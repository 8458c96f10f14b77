import type { PrismaClient } from '@tollgate/db';
import { systemClock, type WebhookClock } from './clock';
import { DestinationGuard } from './destination';
import { renderEventEmail } from './email-message';
import { disableEndpoint } from './endpoint-state';
import { sendWebhook, type SendResult } from './http-sender';
import { DISABLE_AFTER_FAILING_MS, nextDelayMs, parseRetryAfter } from './schedule';
import type { SecretBox } from './secret-box';
import { signatureHeader } from './secret';
import type { SmtpSender } from './smtp-sender';

export interface DelivererOptions {
  /** The longest an attempt may take (connect, send, answer), 15 s by default. */
  timeoutMs: number;
  clock?: WebhookClock;
  random?: () => number;
  /** Told when an endpoint is disabled for failing (its owner sees the reason in the API). */
  onDisabled?: (endpointId: string, reason: string) => void;
  /** Sends the `email` channel's messages; unset (no SMTP_URL), their attempts fail on the schedule, saying so. */
  email?: SmtpSender;
}

type Endpoint = { id: string; channel: 'webhook' | 'email'; url: string | null; email: string | null; secret: string | null; previousSecret: string | null; previousSecretExpiresAt: Date | null };
type Event = { id: string; type: string; createdAt: Date; data: unknown };

const notSent = (error: string): SendResult => ({ statusCode: null, error: `not sent: ${error}`.slice(0, 300), retryAfter: undefined, body: '', latencyMs: 0 });

export type AttemptOutcome = 'skipped' | 'cancelled' | 'delivered' | 'retrying' | 'failed';

const USER_AGENT = 'Tollgate-Webhooks/1';

/**
 * Makes one attempt of one delivery: the `attempt`th (1-based), which must be the next one due. A job run twice (a
 * worker killed after sending, a stalled job run again) makes the same attempt with the same `webhook-id`, and once the
 * attempt is recorded, a run of it again does nothing. The attempt is recorded in the same transaction that moves the
 * delivery on (delivered, the next attempt's time, failed) and the endpoint's state (failing since, disabled).
 */
export class WebhookDeliverer {
  private readonly clock: WebhookClock;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly secrets: SecretBox,
    private readonly guard: DestinationGuard,
    private readonly options: DelivererOptions,
  ) {
    this.clock = options.clock ?? systemClock;
  }

  async deliver(deliveryId: string, attempt: number): Promise<AttemptOutcome> {
    const delivery = await this.prisma.webhookDelivery.findUnique({ where: { id: deliveryId }, include: { event: true, endpoint: true } });
    if (!delivery || delivery.status !== 'pending' || delivery.attempts !== attempt - 1) return 'skipped';
    const { endpoint, event } = delivery;
    const now = this.clock.now();
    if (!endpoint.enabled) {
      await this.prisma.webhookDelivery.updateMany({ where: { id: deliveryId, status: 'pending' }, data: { status: 'cancelled', nextAttemptAt: null } });
      return 'cancelled';
    }
    if (delivery.nextAttemptAt && delivery.nextAttemptAt > now) return 'skipped';

    let result: SendResult;
    try {
      result = endpoint.channel === 'email' ? await this.mail(endpoint, event, now) : await this.attempt(endpoint, event, now);
    } catch (err) {
      // A secret that cannot be opened (its key left WEBHOOK_ENCRYPTION_KEYS), a URL that no longer parses: a failed
      // attempt on the schedule like any other, never a job that fails again every second. The cause names no secret.
      result = notSent(err instanceof Error ? err.message : String(err));
    }
    return this.record(deliveryId, endpoint.id, attempt, now, result);
  }

  /** The `email` channel: the event's message to the endpoint's address, over the worker's SMTP server. */
  private async mail(endpoint: Endpoint, event: Event, now: Date): Promise<SendResult> {
    if (!this.options.email) return notSent('SMTP_URL is not set (the worker sends e-mail only through an SMTP server it is given)');
    if (!endpoint.email) return notSent('the endpoint has no e-mail address');
    return this.options.email.send(endpoint.email, event.id, event.type, renderEventEmail(event), now);
  }

  private async attempt(endpoint: Endpoint, event: Event, now: Date): Promise<SendResult> {
    if (!endpoint.url || !endpoint.secret) return notSent('the endpoint has no URL or no secret');
    const secrets = [await this.secrets.decrypt(endpoint.secret, endpoint.id)];
    if (endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now) {
      secrets.push(await this.secrets.decrypt(endpoint.previousSecret, endpoint.id));
    }
    // The event's time stays the same across attempts; webhook-timestamp is the attempt's (receivers refuse old ones).
    const body = JSON.stringify({ type: event.type, timestamp: event.createdAt.toISOString(), data: event.data });
    const timestampS = Math.floor(now.getTime() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': event.id,
      'webhook-timestamp': String(timestampS),
      'webhook-signature': signatureHeader(event.id, timestampS, body, secrets),
    };
    const url = new URL(endpoint.url);
    const target = await this.guard.check(url);
    if (!target.ok) return { statusCode: null, error: `destination refused: ${target.reason}`, retryAfter: undefined, body: '', latencyMs: 0 };
    const sent = await sendWebhook(url, target, headers, body, this.options.timeoutMs);
    return sent.statusCode === 410 ? { ...sent, disableReason: `the endpoint answered 410 Gone on ${now.toISOString()}` } : sent;
  }

  private async record(deliveryId: string, endpointId: string, attempt: number, now: Date, result: SendResult): Promise<AttemptOutcome> {
    const code = result.statusCode;
    const delivered = code !== null && code >= 200 && code < 300;
    let disabled: string | null = null;
    const outcome = await this.prisma.$transaction(async (tx) => {
      await tx.webhookAttempt.create({
        data: { deliveryId, attempt, at: now, statusCode: code, error: result.error, latencyMs: result.latencyMs, responseBody: result.body },
      });
      let next: Date | null = null;
      let status: 'delivered' | 'pending' | 'failed' = 'delivered';
      if (delivered) {
        await tx.webhookEndpoint.update({ where: { id: endpointId }, data: { failingSince: null } });
      } else {
        const retryAfterMs = code === 429 || code === 503 ? parseRetryAfter(result.retryAfter, now) : null;
        const delay = nextDelayMs(attempt, retryAfterMs, this.options.random);
        next = delay === null ? null : new Date(now.getTime() + delay);
        status = next ? 'pending' : 'failed';
        const endpoint = await tx.webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId }, select: { failingSince: true } });
        const failingSince = endpoint.failingSince ?? now;
        if (!endpoint.failingSince) await tx.webhookEndpoint.update({ where: { id: endpointId }, data: { failingSince } });
        if (result.disableReason) disabled = result.disableReason;
        else if (now.getTime() - failingSince.getTime() >= DISABLE_AFTER_FAILING_MS) {
          disabled = `every attempt failed since ${failingSince.toISOString()} (5 days or more); the last on ${now.toISOString()}`;
        }
      }
      if (disabled) {
        status = 'failed';
        next = null;
      }
      // Only the attempt that was due moves the delivery on: a second run of the same attempt finds nothing to change.
      const moved = await tx.webhookDelivery.updateMany({
        where: { id: deliveryId, status: 'pending', attempts: attempt - 1 },
        data: { attempts: attempt, lastAttemptAt: now, status, nextAttemptAt: next },
      });
      if (moved.count === 0) throw new Error('the attempt was recorded by another run');
      // The endpoint's other deliveries still waiting are cancelled with it; this one failed.
      if (disabled) await disableEndpoint(tx, endpointId, disabled, now);
      return delivered ? 'delivered' : next ? 'retrying' : 'failed';
    });
    if (disabled) this.options.onDisabled?.(endpointId, disabled);
    return outcome;
  }
}
