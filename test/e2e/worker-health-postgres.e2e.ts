import { randomUUID } from 'node:crypto';
import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { createEndpoint, publishEvent, SecretBox } from '@tollgate/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer } from '../../scripts/lib/redis-server.mjs';
import type { HealthReport } from '../../apps/worker/src/health/worker-health';
import { testDatabaseUrl } from '../support/env';
import { waitFor } from '../support/fixtures';
import { recreateDatabase, startWorker, type WorkerProcess } from '../support/stack';
import { proxiedDatabase, type TcpProxy } from '../support/tcp-proxy';
import { startReceiver } from '../support/webhook-receiver';

// The worker (built) reaches Postgres through a proxy the test cuts: webhook delivery is a loop of claims, not a job,
// and its health must still say when the loop stops completing rounds, name it, and record the gap once it resumes.
describe('the worker health watches webhook delivery', () => {
  const databaseUrl = testDatabaseUrl('worker_health_pg');
  let prisma: PrismaClient;
  let postgres: { proxy: TcpProxy; databaseUrl: string };
  let redis: Awaited<ReturnType<typeof startRedisServer>>;
  let worker: WorkerProcess;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  const health = async (): Promise<{ status: number; body: HealthReport }> => {
    const port = /GET \/health on [^:]+:(\d+)/.exec(worker.logs())?.[1];
    const res = await fetch(`http://127.0.0.1:${port}/health`);
    return { status: res.status, body: (await res.json()) as HealthReport };
  };
  const publish = () => prisma.$transaction((tx) => publishEvent(tx, { type: 'platform.rule_set_rejected', tenantId: null, dedupKey: randomUUID(), data: { version: 1 } }));
  const deliveredTimes = (eventId: string) => receiver.received.filter((r) => r.headers['webhook-id'] === eventId).length;

  beforeAll(async () => {
    await recreateDatabase(databaseUrl);
    prisma = createPrismaClient(databaseUrl, { poolSize: 2 });
    postgres = await proxiedDatabase(databaseUrl);
    redis = await startRedisServer('tollgate-worker-health-pg');
    receiver = await startReceiver();
    await prisma.$transaction((tx) =>
      createEndpoint(tx, new SecretBox(prisma, []), { tenantId: null, url: `${receiver.url}/hooks`, description: 'health', eventTypes: ['platform.rule_set_rejected'] }),
    );
    worker = startWorker({
      DATABASE_URL: postgres.databaseUrl,
      REDIS_URL: redis.url,
      LOG_LEVEL: 'info',
      WEBHOOK_DISPATCH_EVERY_MS: '200',
      WEBHOOK_ALLOWED_DESTINATIONS: '127.0.0.1',
      WORKER_SCHEDULES_CHECK_MS: '1000',
    });
    await waitFor(async () => (await health().catch(() => null))?.body.loops[0]?.lastCompletedAt != null, 60_000, 200);
  }, 90_000);
  afterAll(async () => {
    await worker?.stop();
    await postgres?.proxy.close();
    await redis?.stop();
    await receiver?.close();
    await prisma?.$disconnect();
  });

  it('turns 503 naming webhook-delivery when its claims fail for its missed rounds (Postgres away), and records the gap once they go through again', async () => {
    const { status, body } = await health();
    expect(status).toBe(200);
    expect(body.loops).toEqual([expect.objectContaining({ loop: 'webhook-delivery', everyMs: 200, overdue: false })]);

    await postgres.proxy.cut();
    const cutAt = Date.now();
    const meanwhile = await publish();
    // 3 rounds of 200 ms are less than the 30 s floor: the loop is called stalled 30 s after its last round.
    await waitFor(async () => (await health()).status === 503, 90_000, 500);
    const down = (await health()).body;
    const delivery = down.loops.find((l) => l.loop === 'webhook-delivery');
    expect(delivery?.overdue).toBe(true);
    expect(delivery?.lastError).not.toBeNull();
    expect(Date.parse(delivery!.lastFailedAt!)).toBeGreaterThan(Date.parse(delivery!.lastCompletedAt!));
    expect(down.problems.find((p) => p.startsWith('webhook-delivery: no claim round completed since'))).toContain('; last failed at');
    const open = down.incidents.find((i) => i.kind === 'loop-stalled');
    expect(open).toMatchObject({ subject: 'webhook-delivery', until: null });
    expect(Date.parse(open!.since) - Date.parse(open!.lastSeenFine!)).toBeGreaterThanOrEqual(30_000);
    expect(deliveredTimes(meanwhile.id)).toBe(0);
    expect(worker.logs()).toMatch(/webhook claim failed/);

    await postgres.proxy.restore();
    const restoredAt = Date.now();
    await waitFor(() => deliveredTimes(meanwhile.id) === 1, 60_000, 200);
    await waitFor(async () => (await health()).body.loops[0]?.overdue === false, 30_000, 200);
    const up = (await health()).body;
    expect(up.loops[0]).toMatchObject({ overdue: false, lastError: null });
    const ended = up.incidents.find((i) => i.kind === 'loop-stalled' && i.subject === 'webhook-delivery');
    expect(Date.parse(ended!.lastSeenFine!)).toBeLessThanOrEqual(cutAt);
    expect(Date.parse(ended!.until!)).toBeGreaterThanOrEqual(restoredAt);
    expect(up.problems.filter((p) => p.startsWith('webhook-delivery'))).toEqual([]);
    expect(deliveredTimes(meanwhile.id)).toBe(1);
  }, 180_000);

  // Runs last: a claim sent into the blackhole is never answered (no error), and this worker does not claim again (see the ADR).
  it('turns 503 naming webhook-delivery when its claim hangs unanswered (Postgres blackholed)', async () => {
    await waitFor(async () => (await health()).status === 200, 30_000, 200);
    const before = (await health()).body.incidents.filter((i) => i.kind === 'loop-stalled').length;
    postgres.proxy.blackhole(true);
    await waitFor(async () => (await health()).body.loops[0]?.overdue === true, 90_000, 500);
    const { status, body } = await health();
    expect(status).toBe(503);
    // A claim that reached the blackhole before a connection of the pool was open fails on the connect timeout instead
    // of hanging: the problem then adds when it last failed. Either way it names the round that last completed.
    const named = `webhook-delivery: no claim round completed since ${body.loops[0]!.lastCompletedAt} (every 200 ms)`;
    expect(body.problems.filter((p) => p === named || p.startsWith(`${named}; last failed at `)), JSON.stringify(body.problems)).toHaveLength(1);
    const stalled = body.incidents.filter((i) => i.kind === 'loop-stalled');
    expect(stalled).toHaveLength(before + 1);
    expect(stalled[0]).toMatchObject({ subject: 'webhook-delivery', until: null });
    // No detail while the claim hangs; a claim that failed on the connect timeout gives its error.
    expect([null, body.loops[0]!.lastError]).toContain(stalled[0]!.detail);
    postgres.proxy.blackhole(false);
  }, 120_000);
});
