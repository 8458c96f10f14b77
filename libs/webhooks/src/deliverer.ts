import type { ClaimedAttempt } from './claims';
import type { DestinationGuard } from './destination';
import { renderEventEmail } from './email-message';
import { type ConnectionPools, sendWebhook, type SendResult } from './http-sender';
import type { SecretBox } from './secret-box';
import { signatureHeader } from './secret';
import type { SmtpSender } from './smtp-sender';

export interface DelivererOptions {
  /** The longest an attempt may take (connect, send, answer), 15 s by default. */
  timeoutMs: number;
  /** Sends the `email` channel's messages; unset (no SMTP_URL), their attempts fail on the schedule, saying so. */
  email?: SmtpSender;
  /** Keeps connections to receivers open between attempts (one pool per checked address). */
  connections?: ConnectionPools;
}

type Endpoint = ClaimedAttempt['endpoint'];
type Event = ClaimedAttempt['event'];

const notSent = (error: string): SendResult => ({ statusCode: null, error: `not sent: ${error}`.slice(0, 300), retryAfter: undefined, body: '', latencyMs: 0 });

const USER_AGENT = 'Tollgate-Webhooks/1';
/** The most opened secrets a worker keeps (two an endpoint during a rotation's overlap). */
const OPENED_SECRETS = 1_000;

/**
 * Makes one claimed attempt (docs/adr/0017-webhooks.md): the signed POST of the `webhook` channel (its destination
 * checked at every attempt, the connection made to the address checked) or the `email` channel's message, and answers
 * what came back. It reads and writes nothing in Postgres: the attempt was logged when claimed, and its outcome is
 * recorded with others' (`recordOutcomes`). Never throws: a secret that cannot be opened, a URL that no longer parses,
 * is a failed attempt on the schedule like any other.
 */
export class WebhookDeliverer {
  private readonly opened = new Map<string, Promise<string>>();

  constructor(
    private readonly secrets: SecretBox,
    private readonly guard: DestinationGuard,
    private readonly options: DelivererOptions,
  ) {}

  /**
   * A sealed secret opened once, not at every attempt (a batch to one endpoint is hundreds): kept by its sealed form,
   * so a rotated secret is a new entry; a failure to open is not kept.
   */
  private open(sealed: string, endpointId: string): Promise<string> {
    const key = `${endpointId}:${sealed}`;
    let opened = this.opened.get(key);
    if (!opened) {
      if (this.opened.size >= OPENED_SECRETS) this.opened.clear();
      opened = this.secrets.decrypt(sealed, endpointId);
      this.opened.set(key, opened);
      opened.catch(() => this.opened.delete(key));
    }
    return opened;
  }

  async send(claim: ClaimedAttempt): Promise<SendResult> {
    const { endpoint, event, at } = claim;
    try {
      return endpoint.channel === 'email' ? await this.mail(endpoint, event, at) : await this.attempt(endpoint, event, at);
    } catch (err) {
      // The cause names no secret.
      return notSent(err instanceof Error ? err.message : String(err));
    }
  }

  /** The `email` channel: the event's message to the endpoint's address, over the worker's SMTP server. */
  private async mail(endpoint: Endpoint, event: Event, now: Date): Promise<SendResult> {
    if (!this.options.email) return notSent('SMTP_URL is not set (the worker sends e-mail only through an SMTP server it is given)');
    if (!endpoint.email) return notSent('the endpoint has no e-mail address');
    return this.options.email.send(endpoint.email, event.id, event.type, renderEventEmail(event), now);
  }

  private async attempt(endpoint: Endpoint, event: Event, now: Date): Promise<SendResult> {
    if (!endpoint.url || !endpoint.secret) return notSent('the endpoint has no URL or no secret');
    const secrets = [await this.open(endpoint.secret, endpoint.id)];
    if (endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now) {
      secrets.push(await this.open(endpoint.previousSecret, endpoint.id));
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
    const sent = await sendWebhook(url, target, headers, body, this.options.timeoutMs, this.options.connections);
    return sent.statusCode === 410 ? { ...sent, disableReason: `the endpoint answered 410 Gone on ${now.toISOString()}` } : sent;
  }
}
