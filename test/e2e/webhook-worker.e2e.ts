import { randomUUID } from 'node:crypto';
import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { createEndpoint, publishEvent, SecretBox } from '@tollgate/webhooks';
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl, testRedisUrl } from '../support/env';
import { waitFor } from '../support/fixtures';
import { recreateDatabase, startWorker, type WorkerProcess } from '../support/stack';
import { startReceiver } from '../support/webhook-receiver';

// A database and a Redis database of this file's own: the workers deliver whatever is due there.
const databaseUrl = testDatabaseUrl('webhook_worker');
const redisUrl = testRedisUrl(15);

describe('the worker delivers webhooks at least once', () => {
  let prisma: PrismaClient;
  const workers: WorkerProcess[] = [];
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  /** The built worker (`npx nx run worker:build`); a killed one's claim ends 2 s after the attempt's timeout (5 s). */
  const worker = () => {
    const w = startWorker({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, LOG_LEVEL: 'info', WEBHOOK_ALLOWED_DESTINATIONS: '127.0.0.1', WEBHOOK_JOB_LOCK_MS: '2000', WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_DISPATCH_EVERY_MS: '200' });
    workers.push(w);
    return w;
  };

  beforeAll(async () => {
    await recreateDatabase(databaseUrl);
    prisma = createPrismaClient(databaseUrl, { poolSize: 2 });
    const redis = new Redis(redisUrl);
    await redis.flushdb();
    redis.disconnect();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await receiver?.close();
    await prisma?.$disconnect();
  });

  it('logs the attempt a SIGKILLed worker had in flight as outcome unknown, then retries it with the same webhook-id, and never makes a second event', async () => {
    // The secret is sealed with the database's key (no WEBHOOK_ENCRYPTION_KEYS): the worker, another process, opens it.
    const box = new SecretBox(prisma, []);
    const { endpoint, secret } = await prisma.$transaction((tx) =>
      createEndpoint(tx, box, { tenantId: null, url: `${receiver.url}/hooks`, description: 'e2e', eventTypes: ['platform.rule_set_rejected'] }),
    );
    const dedupKey = randomUUID();
    const event = await prisma.$transaction((tx) => publishEvent(tx, { type: 'platform.rule_set_rejected', tenantId: null, dedupKey, data: { version: 7 } }));
    receiver.answer('hold');

    const first = worker();
    await waitFor(() => receiver.received.length >= 1, 60_000, 50);
    await first.stop('SIGKILL');
    // The receiver has the POST, and the log has its attempt: written before it was sent, with no outcome.
    const killed = await prisma.webhookDelivery.findFirstOrThrow({ where: { eventId: event.id }, include: { attemptLog: true } });
    expect(killed).toMatchObject({ status: 'pending', attempts: 1 });
    expect(killed.attemptLog).toEqual([expect.objectContaining({ attempt: 1, outcome: null, statusCode: null, latencyMs: null })]);

    const second = worker();
    await waitFor(async () => (await prisma.webhookDelivery.findFirstOrThrow({ where: { eventId: event.id } })).status === 'delivered', 60_000, 100);
    await second.stop();

    expect(receiver.received).toHaveLength(2);
    for (const request of receiver.received) {
      expect(request.headers['webhook-id']).toBe(event.id);
      expect(new Webhook(secret!).verify(request.body, request.headers as Record<string, string>)).toMatchObject({ type: 'platform.rule_set_rejected', data: { version: 7 } });
    }
    expect(await prisma.webhookEvent.count({ where: { dedupKey } })).toBe(1);
    const delivery = await prisma.webhookDelivery.findFirstOrThrow({ where: { eventId: event.id, endpointId: endpoint.id }, include: { attemptLog: { orderBy: { attempt: 'asc' } } } });
    expect(delivery.attemptLog.map((a) => [a.attempt, a.outcome, a.statusCode])).toEqual([
      [1, null, null],
      [2, 'delivered', 200],
    ]);
    // The worker's logs never carry the secret.
    expect(first.logs() + second.logs()).not.toContain(secret!.slice(6));
  }, 120_000);
});
