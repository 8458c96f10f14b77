import { randomUUID } from 'node:crypto';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import type { PrismaClient } from '@tollgate/db';
import type { OutgoingEvent } from '@tollgate/domain';
import { createEndpoint, deleteExpiredWebhookRows, MAX_ATTEMPTS, publishEvent, RETRY_DELAYS_MS, rotateEndpointSecret, type SecretBox } from '@tollgate/webhooks';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../../../test/support/fixtures';
import { disableEarlierEndpoints, webhookDatabase } from '../../../../test/support/webhook-db';
import { selfSignedCertificate } from '../../../../test/support/tls';
import { afterAttempts as afterRecorded, deliveryOf as deliveryIn } from '../../../../test/support/webhook-log';
import { startReceiver, testClock } from '../../../../test/support/webhook-receiver';
import { WebhookRunner } from './webhook-runner';

const silent = { log: () => undefined, warn: () => undefined, error: () => undefined };

describe('webhook delivery (worker, real Postgres and HTTP receiver)', () => {
  let prisma: PrismaClient;
  let box: SecretBox;
  let runner: WebhookRunner;
  const clock = testClock();
  const warnings: string[] = [];
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  const startRunner = async () => {
    runner = new WebhookRunner({
      prisma,
      settings: { encryptionKeys: '', allowedDestinations: '127.0.0.1', dispatchEveryMs: 100, timeoutMs: 1000, concurrency: 4, lockMs: 5000 },
      log: { ...silent, warn: (m: string) => warnings.push(m) },
      clock,
      // Names that resolve to a private address (as a rebinding DNS would answer at delivery time), plain or carried by
      // a NAT64 address (64:ff9b::a00:7 is 10.0.0.7).
      resolver: async (host) =>
        host === 'rebound.test' ? [{ address: '10.0.0.7', family: 4 }] : host === 'nat64.test' ? [{ address: '64:ff9b::a00:7', family: 6 }] : [{ address: '127.0.0.1', family: 4 }],
    });
    runner.start();
  };

  beforeAll(async () => {
    ({ prisma, box } = await webhookDatabase('webhooks', 4));
    receiver = await startReceiver();
    await startRunner();
  });
  afterAll(async () => {
    await runner?.close();
    await receiver?.close();
    await prisma?.$disconnect();
  });
  // Each test sees only its own endpoints: those of the tests before are disabled (their waiting deliveries cancelled).
  beforeEach(async () => {
    await disableEarlierEndpoints(prisma);
    receiver.reset();
  });

  const endpoint = async (url = receiver.url, types: OutgoingEvent['type'][] = ['quota.threshold_crossed'], tenantId: string | null = null) =>
    prisma.$transaction((tx) => createEndpoint(tx, box, { tenantId, url, description: 'test', eventTypes: types }));
  const publish = (event: Partial<OutgoingEvent> = {}) =>
    prisma.$transaction((tx) =>
      publishEvent(tx, { type: 'quota.threshold_crossed', tenantId: null, dedupKey: randomUUID(), data: { tenant: 'acme', threshold: 0.8 }, ...event }, clock),
    );
  /** The delay the delivery's next attempt was scheduled after its last one. */
  const deliveryOf = (eventId: string, endpointId: string) => deliveryIn(prisma, eventId, endpointId);
  const afterAttempts = (eventId: string, endpointId: string, n: number) => afterRecorded(prisma, eventId, endpointId, n);
  const scheduledDelay = (d: { nextAttemptAt: Date | null; lastAttemptAt: Date | null }) => d.nextAttemptAt!.getTime() - d.lastAttemptAt!.getTime();

  it('signs every delivery as Standard Webhooks receivers verify it, with both secrets during a rotation', async () => {
    const { endpoint: e, secret } = await endpoint();
    const first = await publish();
    await afterAttempts(first.id, e.id, 1);
    const [request] = receiver.received;
    const payload = new Webhook(secret!).verify(request!.body, request!.headers as Record<string, string>) as { type: string; data: unknown; timestamp: string };
    expect(payload).toMatchObject({ type: 'quota.threshold_crossed', data: { tenant: 'acme', threshold: 0.8 } });
    expect(request!.headers['webhook-id']).toBe(first.id);
    expect(request!.headers['webhook-id']).toMatch(/^msg_[0-9A-Za-z]{24}$/);
    expect((await deliveryOf(first.id, e.id)).status).toBe('delivered');

    const rotated = await prisma.$transaction((tx) => rotateEndpointSecret(tx, box, e.id, 24 * 3_600_000, clock.now()));
    const second = await publish();
    await afterAttempts(second.id, e.id, 1);
    const during = receiver.received[1]!;
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const s of [secret, rotated.secret]) new Webhook(s!).verify(during.body, during.headers as Record<string, string>);
    // The stored secrets are sealed: neither is in the row in clear.
    const row = await prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: e.id } });
    expect(JSON.stringify(row)).not.toContain(secret!.slice(6));
    expect(JSON.stringify(row)).not.toContain(rotated.secret!.slice(6));
  });

  it('publishes an event once per dedupKey: a second publish is one event and one delivery', async () => {
    const { endpoint: e } = await endpoint();
    const dedupKey = randomUUID();
    const [a, b] = [await publish({ dedupKey }), await publish({ dedupKey })];
    expect(b).toEqual({ id: a.id, created: false, deliveries: 0 });
    expect(await prisma.webhookEvent.count({ where: { dedupKey } })).toBe(1);
    expect(await prisma.webhookDelivery.count({ where: { eventId: a.id, endpointId: e.id } })).toBe(1);
    await afterAttempts(a.id, e.id, 1);
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === a.id)).toHaveLength(1);
  });

  it('fans an event out to the operator’s subscribed endpoints and its own tenant’s, never another tenant’s', async () => {
    const tenants = await prisma.$transaction(async (tx) => {
      const plan = await tx.plan.create({ data: { slug: `p-${randomUUID().slice(0, 8)}`, name: 'p' } });
      const make = (s: string) => tx.tenant.create({ data: { slug: `${s}-${randomUUID().slice(0, 8)}`, name: s, planId: plan.id } });
      return [await make('a'), await make('b')];
    });
    const operator = await endpoint(receiver.url, ['quota.window_reset']);
    const unsubscribed = await endpoint(receiver.url, ['denied_rate.firing']);
    const own = await endpoint(receiver.url, ['quota.window_reset'], tenants[0]!.id);
    const other = await endpoint(receiver.url, ['quota.window_reset'], tenants[1]!.id);
    const event = await publish({ type: 'quota.window_reset', tenantId: tenants[0]!.id });
    const to = await prisma.webhookDelivery.findMany({ where: { eventId: event.id }, select: { endpointId: true } });
    expect(to.map((d) => d.endpointId).sort()).toEqual([operator.endpoint.id, own.endpoint.id].sort());
    expect(to.map((d) => d.endpointId)).not.toContain(unsubscribed.endpoint.id);
    expect(to.map((d) => d.endpointId)).not.toContain(other.endpoint.id);
  });

  it('retries a 500 on the schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h ±20 %) with the same webhook-id, then fails', async () => {
    receiver.fallback = { status: 500, body: 'down\u0000\u001b[31m' };
    const { endpoint: e } = await endpoint();
    const event = await publish();
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      const d = await afterAttempts(event.id, e.id, attempt);
      if (attempt < MAX_ATTEMPTS) {
        const base = RETRY_DELAYS_MS[attempt - 1]!;
        expect(scheduledDelay(d)).toBeGreaterThanOrEqual(base * 0.8);
        expect(scheduledDelay(d)).toBeLessThanOrEqual(base * 1.2);
        expect(d.status).toBe('pending');
        clock.advanceTo(d.nextAttemptAt!);
      } else {
        expect(d.status).toBe('failed');
        expect(d.nextAttemptAt).toBeNull();
      }
    }
    const d = await deliveryOf(event.id, e.id);
    expect(d.attemptLog.map((a) => a.statusCode)).toEqual(new Array(MAX_ATTEMPTS).fill(500));
    // The answer's body is kept sanitized: no NUL, no terminal escapes.
    expect(d.attemptLog[0]!.responseBody).toBe('down\ufffd\ufffd[31m');
    const ids = receiver.received.filter((r) => r.headers['webhook-id'] === event.id);
    expect(ids).toHaveLength(MAX_ATTEMPTS);
  });

  it('counts an attempt that gets no answer in time as failed, and retries it', async () => {
    receiver.answer('hold');
    const { endpoint: e } = await endpoint();
    const event = await publish();
    const d = await afterAttempts(event.id, e.id, 1);
    expect(d.attemptLog[0]).toMatchObject({ statusCode: null, error: 'timed out after 1000 ms' });
    expect(scheduledDelay(d)).toBeGreaterThanOrEqual(4_000);
    clock.advanceTo(d.nextAttemptAt!);
    expect((await afterAttempts(event.id, e.id, 2)).status).toBe('delivered');
  });

  it('follows Retry-After on 429 and 503, in seconds or as an HTTP date, and cuts a huge one to 24 h', async () => {
    const { endpoint: e } = await endpoint();
    receiver.answer({ status: 429, headers: { 'retry-after': '120' } });
    const event = await publish();
    let d = await afterAttempts(event.id, e.id, 1);
    expect(scheduledDelay(d)).toBe(120_000);

    clock.advanceTo(d.nextAttemptAt!);
    receiver.answer({ status: 503, headers: { 'retry-after': new Date(clock.now().getTime() + 3_600_000).toUTCString() } });
    d = await afterAttempts(event.id, e.id, 2);
    // The HTTP date (whole seconds, read when the attempt was made): about an hour, far more than the schedule's 5 min.
    expect(scheduledDelay(d)).toBeGreaterThan(3_000_000);
    expect(scheduledDelay(d)).toBeLessThanOrEqual(3_600_000);

    receiver.answer({ status: 429, headers: { 'retry-after': '99999999' } });
    clock.advanceTo(d.nextAttemptAt!);
    d = await afterAttempts(event.id, e.id, 3);
    expect(scheduledDelay(d)).toBe(24 * 3_600_000);

    // A 500's Retry-After is not followed: the schedule decides (2 h ±20 %).
    receiver.answer({ status: 500, headers: { 'retry-after': '86400' } });
    clock.advanceTo(d.nextAttemptAt!);
    d = await afterAttempts(event.id, e.id, 4);
    expect(scheduledDelay(d)).toBeLessThanOrEqual(2.4 * 3_600_000);
  });

  it('disables an endpoint that answers 410 Gone, cancels what waited for it and says why', async () => {
    const { endpoint: e } = await endpoint();
    receiver.fallback = { status: 410 };
    const event = await publish();
    const d = await afterAttempts(event.id, e.id, 1);
    expect(d.status).toBe('failed');
    const row = await prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: e.id } });
    expect(row.enabled).toBe(false);
    expect(row.disabledReason).toMatch(/^the endpoint answered 410 Gone on /);
    expect(warnings.some((w) => w.startsWith(`webhook endpoint ${e.id} disabled: the endpoint answered 410`))).toBe(true);
    // A disabled endpoint gets no new deliveries.
    const later = await publish();
    expect(await prisma.webhookDelivery.count({ where: { eventId: later.id, endpointId: e.id } })).toBe(0);
  });

  it('disables an endpoint whose attempts have all failed for 5 days', async () => {
    receiver.fallback = { status: 500 };
    const { endpoint: e } = await endpoint();
    const first = await publish();
    await afterAttempts(first.id, e.id, 1);
    const failingSince = (await prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: e.id } })).failingSince!;
    clock.advance(5 * 24 * 3_600_000);
    // The next failed attempt (the first event's retry, or the second event's first attempt) disables it.
    await publish();
    await waitFor(async () => !(await prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: e.id } })).enabled, 10_000);
    const row = await prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: e.id } });
    expect(row.disabledReason).toContain(`every attempt failed since ${failingSince.toISOString()} (5 days or more)`);
    expect(warnings.some((w) => w.startsWith(`webhook endpoint ${e.id} disabled: every attempt failed`))).toBe(true);
    expect(await prisma.webhookDelivery.count({ where: { endpointId: e.id, status: 'pending' } })).toBe(0);
  });

  it('never connects to a private address, whatever the name resolved to when the endpoint was made', async () => {
    receiver.fallback = { status: 200 };
    const rebound = await endpoint('http://rebound.test:1/hook');
    const literal = await endpoint('http://[::ffff:169.254.169.254]/latest/meta-data');
    const nat64 = await endpoint('http://nat64.test:1/hook');
    const event = await publish();
    for (const e of [rebound, literal, nat64]) {
      const d = await afterAttempts(event.id, e.endpoint.id, 1);
      expect(d.status).toBe('pending');
      expect(d.attemptLog[0]!.statusCode).toBeNull();
      expect(d.attemptLog[0]!.error).toMatch(/^destination refused: /);
    }
    expect((await deliveryOf(event.id, rebound.endpoint.id)).attemptLog[0]!.error).toContain('rebound.test resolves to 10.0.0.7 is a private address');
    expect((await deliveryOf(event.id, literal.endpoint.id)).attemptLog[0]!.error).toContain('linkLocal');
    expect((await deliveryOf(event.id, nat64.endpoint.id)).attemptLog[0]!.error).toContain('nat64.test resolves to 64:ff9b::a00:7 carries 10.0.0.7 (NAT64), a private address');
  });

  it('connects to the address it checked, keeping the URL\'s host name (no second DNS answer is asked for)', async () => {
    // receiver.test exists only in the resolver the runner was given: a connection by any other lookup would fail.
    const port = new URL(receiver.url).port;
    const { endpoint: e } = await endpoint(`http://receiver.test:${port}/hooks?x=1`);
    const event = await publish();
    expect((await afterAttempts(event.id, e.id, 1)).status).toBe('delivered');
    expect(receiver.received[0]!.headers.host).toBe(`receiver.test:${port}`);
  });

  describe('over https', () => {
    // hooks.test and other.test resolve to 127.0.0.1 (the runner's resolver). The certificate of hooks.test is trusted the
    // way a public authority's is (in the process's default CA store); that of untrusted.test is not.
    const trusted = selfSignedCertificate(['hooks.test']);
    const untrusted = selfSignedCertificate(['untrusted.test']);
    let secure: Awaited<ReturnType<typeof startReceiver>>;
    let stranger: Awaited<ReturnType<typeof startReceiver>>;
    let defaultCas: string[];
    beforeAll(async () => {
      defaultCas = getCACertificates('default');
      setDefaultCACertificates([...defaultCas, trusted.cert]);
      secure = await startReceiver(undefined, { ...trusted, host: 'hooks.test' });
      stranger = await startReceiver(undefined, { ...untrusted, host: 'untrusted.test' });
    });
    beforeEach(() => {
      secure.reset();
      stranger.reset();
    });
    afterAll(async () => {
      setDefaultCACertificates(defaultCas);
      await secure?.close();
      await stranger?.close();
    });

    it('delivers to the address it checked, with the URL\'s host name for SNI and the certificate\'s check', async () => {
      const { endpoint: e } = await endpoint(`${secure.url}/hooks`);
      const event = await publish();
      expect((await afterAttempts(event.id, e.id, 1)).status).toBe('delivered');
      const [request] = secure.received;
      expect(request!.servername).toBe('hooks.test');
      expect(request!.headers.host).toBe(new URL(secure.url).host);
      expect(request!.headers['webhook-id']).toBe(event.id);
      expect(JSON.parse(request!.body)).toMatchObject({ type: 'quota.threshold_crossed', data: { tenant: 'acme' } });
    });

    it('fails an attempt whose certificate is not trusted or is another host\'s, sends nothing, and retries it', async () => {
      const { endpoint: selfSigned } = await endpoint(stranger.url);
      const { endpoint: otherName } = await endpoint(`https://other.test:${new URL(secure.url).port}/hooks`);
      const event = await publish();
      for (const [e, error] of [
        [selfSigned, /^DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate/],
        [otherName, /^ERR_TLS_CERT_ALTNAME_INVALID: .*other\.test/],
      ] as const) {
        const d = await afterAttempts(event.id, e.id, 1);
        expect(d.attemptLog[0]).toMatchObject({ statusCode: null, error: expect.stringMatching(error) });
        expect(d.status).toBe('pending');
        expect(scheduledDelay(d)).toBeGreaterThanOrEqual(4_000);
      }
      expect(stranger.received).toHaveLength(0);
      expect(secure.received).toHaveLength(0);
    });
  });

  it('does not follow a redirect: a 3xx is a failed attempt, and its Location is never asked', async () => {
    const { endpoint: e } = await endpoint(`${receiver.url}/first`);
    receiver.answer({ status: 307, headers: { location: `${receiver.url}/elsewhere` } });
    const event = await publish();
    const d = await afterAttempts(event.id, e.id, 1);
    expect(d.attemptLog[0]!.statusCode).toBe(307);
    expect(d.status).toBe('pending');
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === event.id)).toHaveLength(1);
  });

  it('delivers what was committed while no worker ran (the outbox is read, not a queue written after the commit)', async () => {
    await runner.close();
    const { endpoint: e } = await endpoint();
    const event = await publish();
    expect((await deliveryOf(event.id, e.id)).attempts).toBe(0);
    await startRunner();
    expect((await afterAttempts(event.id, e.id, 1)).status).toBe('delivered');
  });

  it('records an attempt whose secret cannot be opened as failed, on the schedule, without sending it', async () => {
    const { endpoint: e } = await endpoint();
    await prisma.webhookEndpoint.update({ where: { id: e.id }, data: { secret: 'v1:0badc0de:AAAAAAAAAAAAAAAA:AAAA' } });
    const event = await publish();
    const d = await afterAttempts(event.id, e.id, 1);
    expect(d.status).toBe('pending');
    expect(d.attemptLog[0]!.error).toContain('not sent: the webhook secret was sealed with key 0badc0de');
    expect(receiver.received).toHaveLength(0);
  });

  it('keeps attempts and events 30 days: older ones go, with deliveries, unless something still waits', async () => {
    const { endpoint: e } = await endpoint(receiver.url, ['denied_rate.resolved']);
    const old = await publish({ type: 'denied_rate.resolved' });
    const waiting = await publish({ type: 'denied_rate.resolved' });
    await afterAttempts(old.id, e.id, 1);
    await afterAttempts(waiting.id, e.id, 1);
    await prisma.webhookDelivery.updateMany({ where: { eventId: waiting.id }, data: { status: 'pending', nextAttemptAt: new Date(clock.now().getTime() + 3_600_000) } });
    const later = new Date(clock.now().getTime() + 31 * 86_400_000);
    const deleted = await deleteExpiredWebhookRows(prisma, later, 30);
    expect(deleted.attempts).toBeGreaterThanOrEqual(2);
    expect(await prisma.webhookEvent.count({ where: { id: old.id } })).toBe(0);
    expect(await prisma.webhookDelivery.count({ where: { eventId: old.id } })).toBe(0);
    expect(await prisma.webhookEvent.count({ where: { id: waiting.id } })).toBe(1);
    expect(await prisma.webhookAttempt.count({ where: { delivery: { eventId: waiting.id } } })).toBe(0);
  });
});
