import { NestFactory } from '@nestjs/core';
import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { RedisEngine } from '@tollgate/limiter';
import { createRuleSetVersion } from '@tollgate/rule-store';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, sleep, waitFor } from '../../../../test/support/fixtures';
import { ownStores } from '../../../../test/support/stack';
import { loadWorkerConfig } from '../config/config';
import { WorkerModule } from '../worker.module';
import { ALERT_RETENTION_JOB, ALERTS_QUEUE, EVALUATE_JOB } from './alerts.processor';

// The worker as it runs (Nest module, BullMQ job schedulers, the processor), in this process, evaluating every second.
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

  it('fires a quota alert from its job scheduler, which exists once with the retention job', async () => {
    // The day's window is Redis's (the worker peeks on its clock): not in the last 30 s of a UTC day, which would end it.
    const leftOfDay = 86_400_000 - (Date.now() % 86_400_000);
    if (leftOfDay < 30_000) await sleep(leftOfDay + 100);
    const { plan, tenant } = await createTenant(prisma, [{ name: 'daily', windowS: 86_400, limit: 10 }]);
    await prisma.alertRule.create({ data: { name: 'near quota', kind: 'quota_threshold', planId: plan.id, params: {} } });
    await prisma.$transaction((tx) => createRuleSetVersion(tx, 'test'));
    await new RedisEngine(redis).consume({ tenantId: tenant.id, cost: 9, rules: [{ name: 'daily', algorithm: 'fixed_window', limit: 10, windowMs: 86_400_000 }] });

    const config = loadWorkerConfig({ DATABASE_URL: stores.databaseUrl, REDIS_URL: stores.redisUrl, QUEUE_PREFIX: prefix, LOG_LEVEL: 'silent', ALERTS_EVALUATE_EVERY_MS: '1000' });
    const app = await NestFactory.createApplicationContext(WorkerModule.register(config), { logger: false });
    try {
      await app.init();
      await waitFor(async () => (await prisma.alert.count({ where: { tenantId: tenant.id } })) > 0, 20_000, 100);
      const alert = await prisma.alert.findFirstOrThrow({ where: { tenantId: tenant.id } });
      expect(alert).toMatchObject({ kind: 'quota_threshold', state: 'firing', limitName: 'daily', details: { thresholds: [80], used: 9, capacity: 10 } });
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
