import { randomUUID } from 'node:crypto';
import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { createEndpoint, parseEncryptionKeys, publishEvent, RETRY_DELAYS_MS, SecretBox } from '@tollgate/webhooks';
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../../../../test/support/env';
import { startCluster, type TestCluster } from '../../../../test/support/redis-cluster';
import { recreateDatabase } from '../../../../test/support/stack';
import { afterAttempts as afterRecorded } from '../../../../test/support/webhook-log';
import { startReceiver, testClock } from '../../../../test/support/webhook-receiver';
import { WebhookRunner } from './webhook-runner';

const silent = { log: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * The worker's webhook queues on a real 3-primary Redis Cluster (`REDIS_CLUSTER_NODES`): BullMQ's scripts touch
 * several keys of a queue at once, which a cluster only allows within one hash slot, so the queues' prefix carries a
 * hash tag. The same deliveries as on one server (webhook-delivery.int-spec.ts): signed, retried with the same id.
 */
describe('webhook delivery on a Redis Cluster (worker, real Postgres, cluster and HTTP receiver)', () => {
  let cluster: TestCluster;
  let prisma: PrismaClient;
  let box: SecretBox;
  let runner: WebhookRunner;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const clock = testClock();
  const prefix = `{wh-${randomUUID().slice(0, 8)}}`;

  beforeAll(async () => {
    cluster = await startCluster();
    const databaseUrl = testDatabaseUrl('webhooks_cluster');
    await recreateDatabase(databaseUrl);
    prisma = createPrismaClient(databaseUrl, { poolSize: 4 });
    box = new SecretBox(prisma, parseEncryptionKeys(''));
    receiver = await startReceiver();
    runner = new WebhookRunner({
      prisma,
      // `url` carries only credentials and TLS for a cluster; the nodes are the seeds.
      redis: { url: 'redis://127.0.0.1', clusterNodes: cluster.nodes },
      prefix,
      settings: { encryptionKeys: '', allowedDestinations: '127.0.0.1', dispatchEveryMs: 100, timeoutMs: 1000, concurrency: 4, lockMs: 5000, retentionDays: 30 },
      log: silent,
      clock,
    });
    await runner.start();
  }, 60_000);
  afterAll(async () => {
    await runner?.close();
    await receiver?.close();
    await prisma?.$disconnect();
    await cluster?.stop();
  });


  const afterAttempts = (eventId: string, endpointId: string, n: number) => afterRecorded(prisma, eventId, endpointId, n, 15_000);

  it('delivers a signed webhook, retries a 500 with the same webhook-id, and keeps every queue key in one hash slot', async () => {
    const { endpoint, secret } = await prisma.$transaction((tx) =>
      createEndpoint(tx, box, { tenantId: null, url: receiver.url, description: 'cluster', eventTypes: ['quota.threshold_crossed'] }),
    );
    receiver.answer({ status: 500, body: 'down' });
    const event = await prisma.$transaction((tx) =>
      publishEvent(tx, { type: 'quota.threshold_crossed', tenantId: null, dedupKey: randomUUID(), data: { tenant: 'acme', threshold: 0.8 } }, clock),
    );

    const failed = await afterAttempts(event.id, endpoint.id, 1);
    expect(failed.status).toBe('pending');
    const delay = failed.nextAttemptAt!.getTime() - failed.lastAttemptAt!.getTime();
    expect(delay).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[0]! * 0.8);
    expect(delay).toBeLessThanOrEqual(RETRY_DELAYS_MS[0]! * 1.2);
    clock.advanceTo(failed.nextAttemptAt!);

    const delivered = await afterAttempts(event.id, endpoint.id, 2);
    expect(delivered.status).toBe('delivered');
    expect(receiver.received).toHaveLength(2);
    for (const request of receiver.received) {
      expect(request.headers['webhook-id']).toBe(event.id);
      const payload = new Webhook(secret!).verify(request.body, request.headers as Record<string, string>);
      expect(payload).toMatchObject({ type: 'quota.threshold_crossed', data: { tenant: 'acme', threshold: 0.8 } });
    }

    // Every key of the two queues is on one primary, in one slot: the hash tag of the prefix.
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
