import { randomUUID } from 'node:crypto';
import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { activeTenantsKey, countField, minuteOf, USAGE_KEY_TTL_S, usageKey } from '@tollgate/usage';
import { createEndpoint, publishEvent, SecretBox } from '@tollgate/webhooks';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer } from '../../scripts/lib/redis-server.mjs';
import type { HealthReport } from '../../apps/worker/src/health/worker-health';
import { testDatabaseUrl } from '../support/env';
import { waitFor } from '../support/fixtures';
import { recreateDatabase, startWorker, type WorkerProcess } from '../support/stack';
import { startReceiver } from '../support/webhook-receiver';

/** Every schedule the worker keeps (schedules/job-schedules.ts). */
const SCHEDULES = ['usage-rollup', 'usage-retention', 'alerts-evaluate', 'alerts-retention', 'webhook-retention'];
/** The jobs that run every second here: each must complete again after Redis came back. */
const FREQUENT = ['usage-rollup', 'alerts-evaluate'];

type Redis7 = Awaited<ReturnType<typeof startRedisServer>>;

// The worker (built) against a redis-server of this file's own, which the tests restart empty (no persistence) on the
// same port and flush, while the worker runs: its schedules, and the work that waited in Redis, come back by themselves.
describe('the worker comes back by itself after Redis loses its data', () => {
  const databaseUrl = testDatabaseUrl('worker_heals');
  let prisma: PrismaClient;
  let redis: Redis7;
  let worker: WorkerProcess;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let endpointId: string;

  const health = async (): Promise<{ status: number; body: HealthReport }> => {
    const port = /GET \/health on [^:]+:(\d+)/.exec(worker.logs())?.[1];
    const res = await fetch(`http://127.0.0.1:${port}/health`);
    return { status: res.status, body: (await res.json()) as HealthReport };
  };
  /** Whether each of `jobs` completed a run after `since`, by the worker's health answer. */
  const ranSince = async (jobs: string[], since: number) => {
    const { body } = await health();
    return jobs.every((name) => {
      const done = body.jobs.find((j) => j.job === name)?.lastCompletedAt;
      return done !== null && done !== undefined && Date.parse(done) > since;
    });
  };
  const publish = () => prisma.$transaction((tx) => publishEvent(tx, { type: 'platform.rule_set_rejected', tenantId: null, dedupKey: randomUUID(), data: { version: 1 } }));
  const deliveredTimes = (eventId: string) => receiver.received.filter((r) => r.headers['webhook-id'] === eventId).length;

  beforeAll(async () => {
    await recreateDatabase(databaseUrl);
    prisma = createPrismaClient(databaseUrl, { poolSize: 2 });
    redis = await startRedisServer('tollgate-worker-heals');
    receiver = await startReceiver();
    const box = new SecretBox(prisma, []);
    const { endpoint } = await prisma.$transaction((tx) =>
      createEndpoint(tx, box, { tenantId: null, url: `${receiver.url}/hooks`, description: 'heals', eventTypes: ['platform.rule_set_rejected'] }),
    );
    endpointId = endpoint.id;
    worker = startWorker({
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      LOG_LEVEL: 'info',
      USAGE_ROLLUP_EVERY_MS: '1000',
      USAGE_LIVE_EVERY_MS: '1000',
      USAGE_GRACE_S: '0',
      ALERTS_EVALUATE_EVERY_MS: '1000',
      WEBHOOK_DISPATCH_EVERY_MS: '200',
      WEBHOOK_ALLOWED_DESTINATIONS: '127.0.0.1',
      WORKER_SCHEDULES_CHECK_MS: '1000',
    });
    await waitFor(async () => (await health().catch(() => null))?.status === 200, 60_000, 200);
  }, 90_000);
  afterAll(async () => {
    await worker?.stop();
    await redis?.stop();
    await receiver?.close();
    await prisma?.$disconnect();
  });

  it('runs rollups, alert evaluation and queued webhook deliveries again within 30 s of Redis restarting empty, and /health tells the gap', async () => {
    const before = await publish();
    await waitFor(() => deliveredTimes(before.id) === 1, 30_000, 100);
    expect((await health()).body.incidents.filter((i) => i.kind === 'schedule-missing')).toEqual([]);

    // Redis goes away; an event committed meanwhile waits in Postgres's outbox.
    const port = redis.port;
    await redis.stop();
    const meanwhile = await publish();
    await waitFor(async () => (await health()).status === 503, 30_000, 200);
    const down = (await health()).body;
    expect(down.schedules).toBe('unchecked');
    expect(down.problems.join('\n')).toMatch(/the schedules could not be checked in Redis/);

    // Back on the same port, empty: no schedule, no queue, no job.
    redis = await startRedisServer('tollgate-worker-heals', port);
    const restartedAt = Date.now();
    const client = new Redis(redis.url);
    try {
      // Counts an API node writes after the restart, rolled up (as a live minute) by the rollup that comes back.
      const tenant = randomUUID();
      const minute = minuteOf(Number((await client.time())[0]) * 1000);
      await client.multi().hincrby(usageKey(tenant, minute), countField(null, 'allowed', ''), 3).expire(usageKey(tenant, minute), USAGE_KEY_TTL_S).sadd(activeTenantsKey(minute), tenant).exec();

      await waitFor(() => ranSince(FREQUENT, restartedAt), 30_000, 200);
      await waitFor(() => deliveredTimes(meanwhile.id) === 1, 30_000, 100);
      await waitFor(async () => (await prisma.usageMinute.count({ where: { tenantId: tenant } })) > 0, 30_000, 200);
      const schedulers = await client.keys('{tollgate}:*:repeat:*');
      expect(schedulers.length, 'every schedule is in Redis again').toBeGreaterThanOrEqual(SCHEDULES.length);
    } finally {
      client.disconnect();
    }

    // What was missing meanwhile: the failed checks, and each schedule and queue setting found missing and put back.
    const { status, body } = await health();
    expect(status).toBe(200);
    expect(body.schedules).toBe('checked');
    const unchecked = body.incidents.find((i) => i.kind === 'schedules-unchecked');
    expect(unchecked?.until).not.toBeNull();
    const restored = body.incidents.filter((i) => i.kind === 'schedule-missing');
    expect(restored.map((i) => i.subject).sort()).toEqual([...SCHEDULES].sort());
    for (const incident of restored) {
      expect(Date.parse(incident.until!)).toBeGreaterThanOrEqual(restartedAt);
      expect(Date.parse(incident.lastSeenFine!)).toBeLessThan(restartedAt);
    }
    expect(body.incidents.filter((i) => i.kind === 'queue-setting-missing').map((i) => i.subject).sort()).toEqual(['alerts', 'usage', 'webhooks']);
    // Nothing sent twice: the event delivered before the restart was not sent again, the one of meanwhile once.
    expect(deliveredTimes(before.id)).toBe(1);
    expect(deliveredTimes(meanwhile.id)).toBe(1);
    const delivery = await prisma.webhookDelivery.findFirstOrThrow({ where: { eventId: meanwhile.id, endpointId } });
    expect(delivery.status).toBe('delivered');
    expect(worker.logs()).toMatch(/put back what Redis had lost/);
    // The outage in the log: each BullMQ error once (webhook retention's worker's too), not once per reconnection, and its end.
    const messages = worker.logs().split('\n').flatMap((line) => /"msg":"([^"]*)"/.exec(line)?.[1] ?? []);
    const end = messages.findIndex((m) => m.startsWith('Redis is ready again'));
    expect(end).toBeGreaterThan(0);
    const bullErrors = messages.slice(0, end).filter((m) => m.startsWith('BullMQ '));
    expect(bullErrors.filter((m) => m.startsWith('BullMQ worker of webhooks')).length).toBeGreaterThan(0);
    expect(new Set(bullErrors).size).toBe(bullErrors.length);
    expect(messages.filter((m) => m.startsWith('webhook queue'))).toEqual([]);
  }, 120_000);

  it('puts the schedules back after FLUSHALL, which leaves the connection up', async () => {
    const client = new Redis(redis.url);
    try {
      await client.flushall();
      const flushedAt = Date.now();
      await waitFor(() => ranSince(FREQUENT, flushedAt), 30_000, 200);
      const event = await publish();
      await waitFor(() => deliveredTimes(event.id) === 1, 30_000, 100);
      const { body } = await health();
      const restored = body.incidents.filter((i) => i.kind === 'schedule-missing' && Date.parse(i.since) >= flushedAt);
      expect(restored.map((i) => i.subject).sort()).toEqual([...SCHEDULES].sort());
      expect(body.status).toBe('ok');
    } finally {
      client.disconnect();
    }
  }, 90_000);
});
