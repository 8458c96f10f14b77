import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '@tollgate/db';
import type { OutgoingEvent } from '@tollgate/domain';
import { claimDueAttempts, createEndpoint, publishEvent, RETRY_DELAYS_MS, type SecretBox } from '@tollgate/webhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodedOf, headerOf, type RcptAnswer, startSmtpReceiver } from '../../../../test/support/smtp-receiver';
import { disableEarlierEndpoints, webhookDatabase } from '../../../../test/support/webhook-db';
import { afterAttempts as afterRecorded } from '../../../../test/support/webhook-log';
import { testClock } from '../../../../test/support/webhook-receiver';
import { WebhookRunner } from './webhook-runner';

// The e-mail channel rides the webhooks' outbox, schedule and delivery log; these tests send to a real SMTP server.
describe('e-mail delivery (worker, real Postgres and SMTP server)', () => {
  let prisma: PrismaClient;
  let box: SecretBox;
  const runners: WebhookRunner[] = [];
  const clock = testClock();
  const warnings: string[] = [];
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;

  // A send's timeout of 3 s: the first mail of a run (a connection, the greeting, a worker warming up) took over 1 s
  // on a machine at load 30, and failed an attempt the test expects delivered.
  const startRunner = async (smtpUrl: string) => {
    const runner = new WebhookRunner({
      prisma,
      settings: { encryptionKeys: '', allowedDestinations: '', dispatchEveryMs: 100, timeoutMs: 3000, concurrency: 2, lockMs: 5000, smtpUrl, smtpFrom: 'Tollgate <alerts@tollgate.example>' },
      log: { log: () => undefined, error: () => undefined, warn: (m: string) => warnings.push(m) },
      clock,
    });
    runners.push(runner);
    runner.start();
    return runner;
  };

  beforeAll(async () => {
    ({ prisma, box } = await webhookDatabase('email', 4));
    smtp = await startSmtpReceiver();
    await startRunner(smtp.url);
  });
  afterAll(async () => {
    for (const r of runners) await r.close();
    await smtp?.close();
    await prisma?.$disconnect();
  });
  beforeEach(async () => {
    await disableEarlierEndpoints(prisma);
    smtp.reset();
  });

  const mailbox = (email = `ops-${randomUUID().slice(0, 8)}@example.com`) =>
    prisma.$transaction((tx) => createEndpoint(tx, box, { tenantId: null, channel: 'email', email, description: 'on call', eventTypes: ['quota.threshold_crossed'] }));
  const publish = (event: Partial<OutgoingEvent> = {}) =>
    prisma.$transaction((tx) =>
      publishEvent(
        tx,
        {
          type: 'quota.threshold_crossed',
          tenantId: null,
          dedupKey: randomUUID(),
          data: { rule: { id: randomUUID(), name: 'daily <b>80</b> & 100' }, tenant: { id: randomUUID(), slug: 'acme' }, limit: 'daily', thresholds: [0.8], used: 80, capacity: 100, percent: 80 },
          ...event,
        },
        clock,
      ),
    );

  const afterAttempts = (eventId: string, endpointId: string, n: number) => afterRecorded(prisma, eventId, endpointId, n);
  /** A new mailbox, the server's `answers` to its next recipients, one event published, and its first attempt. */
  const firstAttempt = async (...answers: RcptAnswer[]) => {
    const { endpoint: e } = await mailbox();
    smtp.answer(...answers);
    const event = await publish();
    return { e, event, d: await afterAttempts(event.id, e.id, 1) };
  };

  it('mails an alert event once: its subject says what happened, its text and HTML bodies list it, tenant strings escaped', async () => {
    const { endpoint: e, secret } = await mailbox();
    expect(secret).toBeNull();
    const event = await publish();
    const d = await afterAttempts(event.id, e.id, 1);
    expect(d.status).toBe('delivered');
    expect(d.attemptLog[0]).toMatchObject({ statusCode: 250, error: null });
    expect(smtp.received).toHaveLength(1);
    const [mail] = smtp.received;
    expect(mail!.to).toEqual([e.email]);
    expect(mail!.from).toBe('alerts@tollgate.example');
    expect(headerOf(mail!.raw, 'Subject')).toBe('[Tollgate] acme reached 80 % of daily');
    expect(headerOf(mail!.raw, 'Message-ID')).toBe(`<${event.id}@tollgate.example>`);
    expect(headerOf(mail!.raw, 'X-Tollgate-Event-Type')).toBe('quota.threshold_crossed');
    const body = decodedOf(mail!.raw);
    expect(body).toContain('Tenant acme has used 80 % of its daily quota (80 of 100) in the current window.');
    expect(body).toContain(`event id: ${event.id}`);
    // The rule's name as the operator wrote it in the text part; escaped in the HTML part.
    expect(body).toContain('rule.name: daily <b>80</b> & 100');
    expect(body).toContain('daily &lt;b&gt;80&lt;/b&gt; &amp; 100');
    expect(body).not.toContain('<td>daily <b>');
    // Nothing more is due: one event, one message.
    const now = clock.now();
    expect(await claimDueAttempts(prisma, now, new Date(now.getTime() + 60_000), 100)).toEqual([]);
    expect(smtp.received).toHaveLength(1);
  });

  it('retries a temporary refusal (451) on the schedule and delivers the next attempt', async () => {
    const first = await firstAttempt({ code: 451, message: 'mailbox busy, try later' });
    const { e, event } = first;
    let { d } = first;
    expect(d.status).toBe('pending');
    expect(d.attemptLog[0]).toMatchObject({ statusCode: 451, error: expect.stringContaining('RCPT TO') });
    expect(d.attemptLog[0]!.responseBody).toContain('mailbox busy');
    const delay = d.nextAttemptAt!.getTime() - d.lastAttemptAt!.getTime();
    expect(delay).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[0]! * 0.8);
    expect(delay).toBeLessThanOrEqual(RETRY_DELAYS_MS[0]! * 1.2);
    expect(smtp.received).toHaveLength(0);
    clock.advanceTo(d.nextAttemptAt!);
    d = await afterAttempts(event.id, e.id, 2);
    expect(d.status).toBe('delivered');
    expect(smtp.received).toHaveLength(1);
    expect((await prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: e.id } })).enabled).toBe(true);
  });

  it('counts a server that does not answer in time as a failed attempt, and retries it', async () => {
    const first = await firstAttempt('hold');
    const { e, event } = first;
    let { d } = first;
    expect(d.status).toBe('pending');
    expect(d.attemptLog[0]).toMatchObject({ statusCode: null, error: expect.stringContaining('3000 ms') });
    clock.advanceTo(d.nextAttemptAt!);
    d = await afterAttempts(event.id, e.id, 2);
    expect(d.status).toBe('delivered');
    expect(smtp.received).toHaveLength(1);
  });

  it('disables an endpoint whose address the server refuses for good (550), says why and cancels what waited', async () => {
    const { e, d } = await firstAttempt({ code: 550, message: 'no such user here' });
    expect(d.status).toBe('failed');
    expect(d.attemptLog[0]!.statusCode).toBe(550);
    const row = await prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: e.id } });
    expect(row.enabled).toBe(false);
    expect(row.disabledReason).toMatch(/^the mail server refused the address permanently \(550 no such user here\) on /);
    expect(warnings.some((w) => w.startsWith(`webhook endpoint ${e.id} disabled: the mail server refused`))).toBe(true);
    const later = await publish();
    expect(await prisma.webhookDelivery.count({ where: { eventId: later.id, endpointId: e.id } })).toBe(0);
  });

  it('without SMTP_URL, fails the attempt saying so and keeps it on the schedule', async () => {
    // A second worker without SMTP: only it runs while the first is paused.
    await runners[0]!.close();
    runners.shift();
    const unconfigured = await startRunner('');
    try {
      const { d } = await firstAttempt();
      expect(d.status).toBe('pending');
      expect(d.attemptLog[0]).toMatchObject({ statusCode: null, error: expect.stringContaining('SMTP_URL is not set') });
      expect(d.nextAttemptAt).not.toBeNull();
      expect(smtp.received).toHaveLength(0);
    } finally {
      await unconfigured.close();
      runners.splice(runners.indexOf(unconfigured), 1);
    }
  });
});
