import { NestFactory } from '@nestjs/core';
import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { preparingEachCall, RedisEngine } from '@tollgate/limiter';
import { commitRuleSetVersion } from '@tollgate/rule-store';
import { createEndpoint, parseEncryptionKeys, SecretBox } from '@tollgate/webhooks';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, sleep, waitFor } from '../../../../test/support/fixtures';
import { ownStores } from '../../../../test/support/stack';
import { startReceiver } from '../../../../test/support/webhook-receiver';
import { loadWorkerConfig } from '../config/config';
import { WorkerModule } from '../worker.module';
import { ALERT_RETENTION_JOB, ALERTS_QUEUE, EVALUATE_JOB } from './alerts.processor';

// The worker as it runs (Nest module, BullMQ job schedulers, the processor), in this process, evaluating every second,
// its alerts' events delivered by its webhook delivery to a real receiver.
describe('the worker evaluating alert rules', () => {
  let prisma: PrismaClient;
  let redis: Redis;
  let stores: Awaited<ReturnType<typeof ownStores>>;
  const prefix = '{tollgate-alerts-test}';

  beforeAll(async () => {
    stores = await ownStores('alerts_worker', 8);
    prisma = createPrismaClient(stores.databaseUrl, { poolSize: 2 });
    redis = new Redis(stores.redisUrl);
  });
  afterAll(async () => {
    redis?.disconnect();
    await prisma?.$disconnect();
  });

  it('fires a quota alert from its job scheduler at 80 % and at 100 %, each delivered once as a signed webhook', async () => {
    // The day's window is Redis's (the worker peeks on its clock): not in the last 30 s of a UTC day, which would end it.
    const leftOfDay = 86_400_000 - (Date.now() % 86_400_000);
    if (leftOfDay < 30_000) await sleep(leftOfDay + 100);
    const { plan, tenant } = await createTenant(prisma, [{ name: 'daily', windowS: 86_400, limit: 10 }]);
    await prisma.alertRule.create({ data: { name: 'near quota', kind: 'quota_threshold', planId: plan.id, params: {} } });
    await prisma.$transaction((tx) => commitRuleSetVersion(tx, 'test'));
    const daily = { tenantId: tenant.id, rules: [{ name: 'daily', algorithm: 'fixed_window' as const, limit: 10, windowMs: 86_400_000 }] };
    await preparingEachCall(new RedisEngine(redis)).consume({ ...daily, cost: 9 });
    // The operator's endpoint for quota events, at a receiver on this machine (allowed by the worker's allow-list).
    const receiver = await startReceiver();
    const { secret } = await prisma.$transaction((tx) =>
      createEndpoint(tx, new SecretBox(prisma, parseEncryptionKeys('')), { tenantId: null, url: receiver.url, description: 'alerts', eventTypes: ['quota.threshold_crossed'] }),
    );

    const config = loadWorkerConfig({
      DATABASE_URL: stores.databaseUrl,
      REDIS_URL: stores.redisUrl,
      QUEUE_PREFIX: prefix,
      LOG_LEVEL: 'silent',
      WORKER_HEALTH_PORT: '',
      ALERTS_EVALUATE_EVERY_MS: '1000',
      WEBHOOK_ALLOWED_DESTINATIONS: '127.0.0.1',
      WEBHOOK_DISPATCH_EVERY_MS: '200',
    });
    const app = await NestFactory.createApplicationContext(WorkerModule.register(config), { logger: false });
    try {
      await app.init();
      await waitFor(async () => (await prisma.alert.count({ where: { tenantId: tenant.id } })) > 0, 20_000, 100);
      const alert = await prisma.alert.findFirstOrThrow({ where: { tenantId: tenant.id } });
      expect(alert).toMatchObject({ kind: 'quota_threshold', state: 'firing', limitName: 'daily', details: { thresholds: [80], used: 9, capacity: 10 } });

      // The event reaches the receiver, signed; the tenant's last unit then crosses 100 %: a second event, and no other.
      const events = () =>
        receiver.received.map((r) => new Webhook(secret!.slice('whsec_'.length)).verify(r.body, r.headers as Record<string, string>) as { type: string; data: { thresholds: number[] } });
      await waitFor(() => receiver.received.length >= 1, 20_000, 100);
      await preparingEachCall(new RedisEngine(redis)).consume({ ...daily, cost: 1 });
      await waitFor(() => receiver.received.length >= 2, 20_000, 100);
      await sleep(3000);
      expect(events().map((e) => [e.type, e.data.thresholds])).toEqual([
        ['quota.threshold_crossed', [80]],
        ['quota.threshold_crossed', [100]],
      ]);
      expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(2);
      await receiver.close();

      const queue = new Queue(ALERTS_QUEUE, { connection: redis, prefix });
      try {
        expect((await queue.getJobSchedulers()).map((s) => s.key).sort()).toEqual([ALERT_RETENTION_JOB, EVALUATE_JOB].sort());
      } finally {
        await queue.close();
      }
    } finally {
      await app.close();
    }
  });
});
