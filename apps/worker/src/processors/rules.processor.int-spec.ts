import { randomUUID } from 'node:crypto';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { latestRuleSet, ruleSetKeys, RuleSetStore } from '@tollgate/rules';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL, testEnv, testRedisUrl } from '../../../../test/support/env';
import { publishRules, waitFor } from '../../../../test/support/fixtures';
import { loadWorkerConfig } from '../config/config';
import { RULES_QUEUE } from '../queues';
import { WorkerModule } from '../worker.module';

// A Redis database of its own: no API node of another test file can put the rule set back for the worker.
const redisUrl = testRedisUrl(1);

function startWorker(prefix: string): Promise<INestApplicationContext> {
  const config = loadWorkerConfig(testEnv({ REDIS_URL: redisUrl, QUEUE_PREFIX: prefix, RULES_REPUBLISH_EVERY_MS: '500' }));
  return NestFactory.createApplicationContext(WorkerModule.register(config), { logger: false });
}

describe('worker: rule set re-publish', () => {
  let prisma: PrismaClient;
  let redis: Redis;
  const prefix = `{test-${randomUUID().slice(0, 8)}}`;
  let workers: INestApplicationContext[] = [];

  beforeAll(async () => {
    prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    redis = new Redis(redisUrl);
    await publishRules(prisma, redisUrl);
    // Several workers starting together.
    workers = await Promise.all([startWorker(prefix), startWorker(prefix), startWorker(prefix)]);
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.close()));
    redis.disconnect();
    await prisma.$disconnect();
  });

  it('creates the repeatable job once, however many workers start', async () => {
    const queue = new Queue(RULES_QUEUE, { connection: new Redis(redisUrl, { maxRetriesPerRequest: null }), prefix });
    try {
      expect(await queue.getJobSchedulersCount()).toBe(1);
    } finally {
      await queue.close();
    }
  });

  it('puts the newest version back after Redis lost it', async () => {
    const latest = await latestRuleSet(prisma);
    await redis.del(ruleSetKeys.ruleSet, ruleSetKeys.version);
    const store = new RuleSetStore(redis);
    await waitFor(async () => (await store.version()) !== null, 5_000, 50);
    expect(await store.version()).toBeGreaterThanOrEqual(latest!.version);
    expect((await store.get())!.tenants).toBeDefined();
  });
});
