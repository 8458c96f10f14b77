import { randomUUID } from 'node:crypto';
import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { createRedisClient, type RedisClient } from '@tollgate/nest-infra';
import { publishEvent } from '@tollgate/webhooks';
import { Queue, type Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../../../../test/support/env';
import { waitFor } from '../../../../test/support/fixtures';
import { startCluster, type TestCluster } from '../../../../test/support/redis-cluster';
import { recreateDatabase } from '../../../../test/support/stack';
import { loadWorkerConfig } from '../config/config';
import { bullWorkers } from '../lifecycle/job-processor';
import { RETENTION_JOB, WEBHOOKS_QUEUE, WebhookRetentionProcessor } from './webhook-retention.processor';

/**
 * The worker's `webhooks` queue on a real 3-primary Redis Cluster (`REDIS_CLUSTER_NODES`): BullMQ's scripts touch
 * several keys of a queue at once, which a cluster only allows within one hash slot, so the queues' prefix carries a
 * hash tag. Its retention job runs there as on one server.
 */
describe('webhook retention on a Redis Cluster (worker, real Postgres and cluster)', () => {
  let cluster: TestCluster;
  let prisma: PrismaClient;
  let connection: RedisClient;
  let workers: Worker[] = [];
  let queue: Queue;
  const prefix = `{wh-${randomUUID().slice(0, 8)}}`;

  beforeAll(async () => {
    cluster = await startCluster();
    const databaseUrl = testDatabaseUrl('webhooks_cluster');
    await recreateDatabase(databaseUrl);
    prisma = createPrismaClient(databaseUrl, { poolSize: 4 });
    const config = loadWorkerConfig({
      DATABASE_URL: databaseUrl,
      // `url` carries only credentials and TLS for a cluster; the nodes are the seeds.
      REDIS_URL: 'redis://127.0.0.1',
      REDIS_CLUSTER_NODES: cluster.nodes.map((n) => `${n.host}:${n.port}`).join(','),
      QUEUE_PREFIX: prefix,
      WEBHOOK_RETENTION_DAYS: '30',
    });
    connection = createRedisClient(config.redis, { maxRetriesPerRequest: null });
    workers = bullWorkers([new WebhookRetentionProcessor(prisma, config)], connection, prefix);
    queue = new Queue(WEBHOOKS_QUEUE, { connection, prefix });
  }, 60_000);
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.close()));
    await queue?.close();
    connection?.disconnect();
    await prisma?.$disconnect();
    await cluster?.stop();
  });

  it('deletes the events past retention, and keeps every queue key in one hash slot', async () => {
    const longAgo = { now: () => new Date(Date.now() - 31 * 86_400_000) };
    const old = await prisma.$transaction((tx) =>
      publishEvent(tx, { type: 'quota.threshold_crossed', tenantId: null, dedupKey: randomUUID(), data: { tenant: 'acme', threshold: 0.8 } }, longAgo),
    );
    const recent = await prisma.$transaction((tx) =>
      publishEvent(tx, { type: 'quota.threshold_crossed', tenantId: null, dedupKey: randomUUID(), data: { tenant: 'acme', threshold: 1 } }),
    );

    const job = await queue.add(RETENTION_JOB, {});
    await waitFor(async () => (await job.getState()) === 'completed', 15_000, 100);
    expect((await queue.getJob(job.id!))?.returnvalue).toEqual({ attempts: 0, events: 1 });
    expect((await prisma.webhookEvent.findMany({ where: { id: { in: [old.id, recent.id] } } })).map((e) => e.id)).toEqual([recent.id]);

    // Every key of the queue is on one primary, in one slot: the hash tag of the prefix.
    const slots = new Set<number>();
    let keys = 0;
    for (const node of cluster.nodes) {
      const redis = new Redis(node.port, node.host);
      try {
        for (const key of await redis.keys(`${prefix}:*`)) {
          keys += 1;
          slots.add(Number(await redis.call('CLUSTER', 'KEYSLOT', key)));
        }
      } finally {
        redis.disconnect();
      }
    }
    expect(keys).toBeGreaterThan(0);
    expect(slots.size).toBe(1);
  });
});
