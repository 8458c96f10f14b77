import { performance } from 'node:perf_hooks';
import { createTransport } from 'nodemailer';
import type { EventEmail } from './email-message';
import { type SendResult, sanitizeBody } from './http-sender';

/** The worker's SMTP settings (SMTP_URL, SMTP_FROM); the URL may hold a password: it is never logged nor stored. */
export interface SmtpSettings {
  url: string;
  from: string;
  timeoutMs: number;
}

/** What an SMTP error of nodemailer carries (its reply code, the command answered, the reply). */
interface SmtpError {
  message: string;
  code?: string;
  command?: string;
  responseCode?: number;
  response?: string;
}

/**
 * Sends an event's message over SMTP (nodemailer), one connection per message (the mail server is the operator's own,
 * and messages are few), the whole attempt cut after `timeoutMs`. Its answer is a webhook attempt's: `statusCode` is the SMTP server's reply code
 * (250 delivered; 4xx a temporary failure, retried on the schedule), `body` its reply text. A permanent refusal of the
 * recipient (5xx to RCPT TO) answers `disableReason`: the endpoint is disabled, as a 410 Gone disables a webhook.
 */
export class SmtpSender {
  private readonly transport;
  private readonly domain: string;

  constructor(private readonly settings: SmtpSettings) {
    const t = settings.timeoutMs;
    this.transport = createTransport({ url: settings.url, connectionTimeout: t, greetingTimeout: t, socketTimeout: t, disableFileAccess: true, disableUrlAccess: true });
    this.domain = /@([^>\s]+)>?\s*$/.exec(settings.from)?.[1] ?? 'tollgate.invalid';
  }

  async send(to: string, eventId: string, eventType: string, message: EventEmail, now: Date): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error(`timed out after ${this.settings.timeoutMs} ms`), { code: 'ETIMEDOUT' })), this.settings.timeoutMs);
    });
    try {
      const info = await Promise.race([
        this.transport.sendMail({
          from: this.settings.from,
          to: { name: '', address: to },
          subject: message.subject,
          text: message.text,
          html: message.html,
          // The event's id, as the webhooks' `webhook-id`: the same across attempts, resends and replays.
          messageId: `<${eventId}@${this.domain}>`,
          headers: { 'X-Tollgate-Event-Id': eventId, 'X-Tollgate-Event-Type': eventType, 'Auto-Submitted': 'auto-generated' },
        }),
        timedOut,
      ]);
      const reply = String(info.response ?? '');
      return { statusCode: replyCode(reply) ?? 250, error: null, retryAfter: undefined, body: sanitizeBody(Buffer.from(reply)), latencyMs: elapsed() };
    } catch (raw) {
      const err = raw as SmtpError;
      const code = typeof err.responseCode === 'number' ? err.responseCode : null;
      const result: SendResult = {
        statusCode: code,
        error: sanitizeBody(Buffer.from(`${err.command ? `${err.command}: ` : ''}${err.code ? `${err.code}: ` : ''}${err.message}`)).slice(0, 300),
        retryAfter: undefined,
        body: sanitizeBody(Buffer.from(err.response ?? '')),
        latencyMs: elapsed(),
      };
      if (code !== null && code >= 500 && err.command === 'RCPT TO') {
        result.disableReason = `the mail server refused the address permanently (${result.body.slice(0, 200)}) on ${now.toISOString()}`;
      }
      return result;
    } finally {
      clearTimeout(timer);
    }
  }

  close(): void {
    this.transport.close();
  }
}

const replyCode = (reply: string): number | null => {
  const m = /^([2-5]\d\d)/.exec(reply);
  return m ? Number(m[1]) : null;
};
