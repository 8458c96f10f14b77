import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '@tollgate/db';
import type { OutgoingEvent } from '@tollgate/domain';
import { claimDueAttempts, createEndpoint, publishEvent, publishEvents, releaseClaims, RETRY_DELAYS_MS, type SecretBox } from '@tollgate/webhooks';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../../../test/support/fixtures';
import { disableEarlierEndpoints, webhookDatabase } from '../../../../test/support/webhook-db';
import { startReceiver, testClock } from '../../../../test/support/webhook-receiver';
import { WebhookRunner } from './webhook-runner';

const silent = { log: () => undefined, warn: () => undefined, error: () => undefined };
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * Delivery in batches (docs/adr/0017-webhooks.md): events published many at once, deliveries claimed many at once by
 * several workers (each logged before it is sent, leased to one worker), and outcomes written in groups — with the
 * guarantees of one at a time: once per dedupKey, each attempt sent by one worker, every attempt in the log, the
 * schedule, Retry-After and 410 per delivery.
 */
describe('webhook delivery in batches (workers, real Postgres and HTTP receivers)', () => {
  let prisma: PrismaClient;
  let box: SecretBox;
  const runners: WebhookRunner[] = [];
  const receivers: Receiver[] = [];
  const clock = testClock();
  const warnings: string[] = [];

  const startRunner = async (concurrency: number) => {
    const runner = new WebhookRunner({
      prisma,
      settings: { encryptionKeys: '', allowedDestinations: '127.0.0.1', dispatchEveryMs: 100, timeoutMs: 2000, concurrency, lockMs: 1000 },
      log: { ...silent, warn: (m: string) => warnings.push(m) },
      clock,
    });
    runners.push(runner);
    runner.start();
  };
  /** Exactly `n` workers running from now on: those of the tests before stop first. */
  const onlyWorkers = async (n: number, concurrency: number) => {
    for (const r of runners.splice(0)) await r.close();
    await Promise.all(Array.from({ length: n }, () => startRunner(concurrency)));
  };
  const receiver = async (fallback?: Parameters<typeof startReceiver>[0]) => {
    const r = await startReceiver(fallback);
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    ({ prisma, box } = await webhookDatabase('webhook_batches', 6));
  });
  afterAll(async () => {
    for (const r of runners) await r.close();
    for (const r of receivers) await r.close();
    await prisma?.$disconnect();
  });
  // Each test sees only its own endpoints.
  beforeEach(async () => {
    await disableEarlierEndpoints(prisma);
  });

  const endpoint = async (url: string, types: OutgoingEvent['type'][] = ['quota.threshold_crossed'], tenantId: string | null = null) =>
    prisma.$transaction((tx) => createEndpoint(tx, box, { tenantId, url, description: 'batch', eventTypes: types }));
  const event = (tenantId: string | null = null, dedupKey: string = randomUUID(), type: OutgoingEvent['type'] = 'quota.threshold_crossed'): OutgoingEvent => ({
    type,
    tenantId,
    dedupKey,
    data: { tenant: 'acme', threshold: 0.8 },
  });
  const publishAll = (events: OutgoingEvent[]) => prisma.$transaction((tx) => publishEvents(tx, events, clock));
  const deliveriesTo = (endpointId: string) => prisma.webhookDelivery.findMany({ where: { endpointId }, include: { attemptLog: { orderBy: { attempt: 'asc' } } } });

  it("publishes many events as one publishes each: once per dedupKey, to the operator's subscribed endpoints and the event's own tenant's", async () => {
    const tenants = await prisma.$transaction(async (tx) => {
      const plan = await tx.plan.create({ data: { slug: `p-${randomUUID().slice(0, 8)}`, name: 'p' } });
      const make = (s: string) => tx.tenant.create({ data: { slug: `${s}-${randomUUID().slice(0, 8)}`, name: s, planId: plan.id } });
      return [await make('a'), await make('b')];
    });
    const [a, b] = [tenants[0]!.id, tenants[1]!.id];
    const url = 'http://127.0.0.1:1/unused';
    const operator = await endpoint(url, ['quota.threshold_crossed', 'denied_rate.firing']);
    const own = await endpoint(url, ['quota.threshold_crossed', 'denied_rate.firing'], a);
    const other = await endpoint(url, ['quota.threshold_crossed'], b);
    const earlier = await prisma.$transaction((tx) => publishEvent(tx, event(a), clock));
    const repeated = randomUUID();
    const published = await publishAll([
      event(a, repeated),
      event(a, (await prisma.webhookEvent.findUniqueOrThrow({ where: { id: earlier.id } })).dedupKey),
      event(null),
      // A tenant's endpoint gets only its tenant's quota events, whatever it subscribed to.
      event(a, randomUUID(), 'denied_rate.firing'),
      event(a, repeated),
    ]);
    expect(published).toEqual([
      { id: expect.stringMatching(/^msg_[0-9A-Za-z]{24}$/), created: true, deliveries: 2 },
      { id: earlier.id, created: false, deliveries: 0 },
      { id: expect.stringMatching(/^msg_/), created: true, deliveries: 1 },
      { id: expect.stringMatching(/^msg_/), created: true, deliveries: 1 },
      { id: published[0]!.id, created: false, deliveries: 0 },
    ]);
    const to = async (eventId: string) => (await prisma.webhookDelivery.findMany({ where: { eventId }, select: { endpointId: true } })).map((d) => d.endpointId).sort();
    expect(await to(published[0]!.id)).toEqual([operator.endpoint.id, own.endpoint.id].sort());
    expect(await to(published[2]!.id)).toEqual([operator.endpoint.id]);
    expect(await to(published[3]!.id)).toEqual([operator.endpoint.id]);
    expect(await prisma.webhookDelivery.count({ where: { endpointId: other.endpoint.id } })).toBe(0);
    expect(await prisma.webhookEvent.count({ where: { dedupKey: repeated } })).toBe(1);
  });

  it('claims each due delivery once however many claim at once, logs its attempt before anything is sent, and claims it again when the lease ends', async () => {
    const { endpoint: e } = await endpoint('http://127.0.0.1:1/unused');
    await publishAll(Array.from({ length: 60 }, () => event()));
    const now = clock.now();
    const leaseUntil = new Date(now.getTime() + 60_000);
    const claims = (await Promise.all(Array.from({ length: 4 }, () => claimDueAttempts(prisma, now, leaseUntil, 20)))).flat();
    expect(claims).toHaveLength(60);
    expect(new Set(claims.map((c) => c.deliveryId)).size).toBe(60);
    expect(claims.every((c) => c.attempt === 1 && c.endpoint.id === e.id)).toBe(true);
    // Leased: no one else takes them until the lease ends.
    expect(await claimDueAttempts(prisma, now, leaseUntil, 100)).toEqual([]);
    const logged = await deliveriesTo(e.id);
    expect(logged.every((d) => d.status === 'pending' && d.attempts === 1 && d.attemptLog.length === 1 && d.attemptLog[0]!.outcome === null)).toBe(true);

    // The worker that claimed them never wrote an outcome (it died): once the lease ends, the next attempt is due.
    clock.advanceTo(new Date(leaseUntil.getTime() + 1));
    const later = clock.now();
    const again = await claimDueAttempts(prisma, later, new Date(later.getTime() + 60_000), 100);
    expect(again.map((c) => c.attempt)).toEqual(new Array(60).fill(2));
    expect(again.map((c) => c.event.id).sort()).toEqual(claims.map((c) => c.event.id).sort());

    // Claims given back unsent: their log rows go, and they are due again at once as the same attempt.
    await releaseClaims(prisma, again, later);
    const released = await deliveriesTo(e.id);
    expect(released.every((d) => d.attempts === 1 && d.attemptLog.length === 1 && d.nextAttemptAt!.getTime() === later.getTime())).toBe(true);
    expect((await claimDueAttempts(prisma, later, new Date(later.getTime() + 60_000), 100)).map((c) => c.attempt)).toEqual(new Array(60).fill(2));
  });

  it('drains a backlog of 1,000 with two workers: each delivery sent once, by one of them, signed, one attempt each', async () => {
    const hooks = await receiver();
    const { endpoint: e, secret } = await endpoint(hooks.url);
    await publishAll(Array.from({ length: 1_000 }, () => event()));
    await onlyWorkers(2, 8);
    await waitFor(async () => (await prisma.webhookDelivery.count({ where: { endpointId: e.id, status: 'delivered' } })) === 1_000, 60_000);
    const deliveries = await deliveriesTo(e.id);
    expect(deliveries.every((d) => d.attempts === 1 && d.attemptLog.length === 1 && d.attemptLog[0]!.outcome === 'delivered' && d.attemptLog[0]!.statusCode === 200)).toBe(true);
    const ids = hooks.received.map((r) => String(r.headers['webhook-id']));
    expect(ids).toHaveLength(1_000);
    expect(new Set(ids).size).toBe(1_000);
    const verifier = new Webhook(secret!);
    for (const r of hooks.received) verifier.verify(r.body, r.headers as Record<string, string>);
  });

  it('stops with attempts in flight: they stay in the log as outcome unknown, and what it had claimed but not started is given back', async () => {
    const held = await receiver('hold');
    const { endpoint: e } = await endpoint(held.url);
    await publishAll(Array.from({ length: 30 }, () => event()));
    await onlyWorkers(1, 2);
    const runner = runners.pop()!;
    await waitFor(() => held.received.length === 2, 10_000);
    await runner.close(300);

    const deliveries = await deliveriesTo(e.id);
    const sent = deliveries.filter((d) => d.attempts === 1);
    expect(sent).toHaveLength(2);
    for (const d of sent) expect(d.attemptLog).toEqual([expect.objectContaining({ attempt: 1, outcome: null, statusCode: null })]);
    expect(sent.map((d) => d.eventId).sort()).toEqual(held.received.map((r) => String(r.headers['webhook-id'])).sort());
    // The other 28 were never sent: no attempt logged, due again at once for any worker.
    const given = deliveries.filter((d) => d.attempts === 0);
    expect(given).toHaveLength(28);
    expect(given.every((d) => d.status === 'pending' && d.attemptLog.length === 0 && d.nextAttemptAt! <= clock.now())).toBe(true);
  });

  it('applies each answer of one batch to its own delivery: 200 delivered, 500 and 429 retried on their schedule, 410 disabling its endpoint', async () => {
    const [ok, down, busy, gone] = await Promise.all([
      receiver(),
      receiver({ status: 500 }),
      receiver({ status: 429, headers: { 'retry-after': '120' } }),
      receiver({ status: 410 }),
    ]);
    await onlyWorkers(1, 8);
    const endpoints = await Promise.all([ok, down, busy, gone].map((r) => endpoint(r.url)));
    const [okE, downE, busyE, goneE] = endpoints.map((x) => x.endpoint);
    await publishAll(Array.from({ length: 5 }, () => event()));
    const settled = async (id: string) => (await deliveriesTo(id)).every((d) => d.attemptLog.some((a) => a.outcome !== null) || d.status === 'cancelled');
    await waitFor(async () => (await Promise.all([okE, downE, busyE, goneE].map((x) => settled(x!.id)))).every(Boolean), 20_000);

    expect((await deliveriesTo(okE!.id)).map((d) => d.status)).toEqual(new Array(5).fill('delivered'));
    for (const d of await deliveriesTo(downE!.id)) {
      expect(d).toMatchObject({ status: 'pending', attempts: 1 });
      expect(d.attemptLog[0]).toMatchObject({ outcome: 'failed', statusCode: 500 });
      const delay = d.nextAttemptAt!.getTime() - d.lastAttemptAt!.getTime();
      expect(delay).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[0]! * 0.8);
      expect(delay).toBeLessThanOrEqual(RETRY_DELAYS_MS[0]! * 1.2);
    }
    for (const d of await deliveriesTo(busyE!.id)) expect(d.nextAttemptAt!.getTime() - d.lastAttemptAt!.getTime()).toBe(120_000);
    // The first 410 disables the endpoint: the attempts answered are failed, what had not been sent is cancelled.
    const goneDeliveries = await deliveriesTo(goneE!.id);
    expect(goneDeliveries.every((d) => d.status === 'failed' || d.status === 'cancelled')).toBe(true);
    expect(goneDeliveries.some((d) => d.status === 'failed' && d.attemptLog[0]?.statusCode === 410)).toBe(true);
    const row = await prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: goneE!.id } });
    expect(row).toMatchObject({ enabled: false, disabledReason: expect.stringMatching(/^the endpoint answered 410 Gone on /) });
    expect(warnings.filter((w) => w.startsWith(`webhook endpoint ${goneE!.id} disabled`))).toHaveLength(1);
  });
});
