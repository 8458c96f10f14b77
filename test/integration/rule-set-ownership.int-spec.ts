import { randomUUID } from 'node:crypto';
import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { readInstallationId, ruleSetKeys, RuleSetStore } from '@tollgate/rule-store';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer } from '../../scripts/lib/redis-server.mjs';
import { startApi, type TestApi } from '../support/api';
import { testDatabaseUrl } from '../support/env';
import { createServiceKey, createTenant, createTenantKey, createUser, publishRules, waitFor } from '../support/fixtures';
import { recreateDatabase } from '../support/stack';

// Who keeps the rule set in Redis (docs/adr/0008-who-keeps-the-rule-set-in-redis.md), end to end: API nodes on a
// redis-server of this file's own, which it kills and starts again empty, and a database of its own (versions
// are deleted to play a restore from an older backup).
const databaseUrl = testDatabaseUrl('ownership');
/** The goal: after anything that happens to Redis, every node enforces the newest committed version within this. */
const WITHIN_MS = 10_000;

type RedisServer = Awaited<ReturnType<typeof startRedisServer>>;

async function setUp() {
  const prisma = createPrismaClient(databaseUrl, { poolSize: 2 });
  const { tenant } = await createTenant(prisma);
  const service = await createServiceKey(prisma);
  const tenantKey = await createTenantKey(prisma, tenant.id);
  const operator = await createUser(prisma);
  return { prisma, tenant, service, tenantKey, operator };
}

describe('the rule set in Redis after Redis restarts, is flushed, or Postgres is restored', () => {
  let redis: RedisServer;
  let prisma: PrismaClient;
  let fixture: Awaited<ReturnType<typeof setUp>>;
  let nodes: TestApi[] = [];
  let session: string;

  beforeAll(async () => {
    await recreateDatabase(databaseUrl);
    redis = await startRedisServer('ownership');
    fixture = await setUp();
    prisma = fixture.prisma;
    await publishRules(prisma, redis.url);
    // Two nodes with the production timings (poll 1 s, reconcile 2 s).
    nodes = await Promise.all([0, 1].map(() => startApi({ DATABASE_URL: databaseUrl, REDIS_URL: redis.url, RULES_POLL_MS: '1000' })));
    session = await nodes[0]!.login(fixture.operator);
  });
  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.close()));
    await redis?.stop();
    await prisma?.$disconnect();
  });

  const checkWithKey = (node: TestApi) =>
    node.request('POST', '/v1/check', { token: fixture.service, body: { key: fixture.tenantKey.key, endpoint: 'GET /v1/items' } });
  const versionOf = async (node: TestApi) => (await node.request('GET', '/health')).body.ruleVersion as number | null;
  const everyNode = async (predicate: (node: TestApi) => Promise<boolean>) => (await Promise.all(nodes.map(predicate))).every(Boolean);

  it('refuses a key revoked while Redis was down on every node once Redis is back empty', async () => {
    for (const node of nodes) expect((await checkWithKey(node)).body).toMatchObject({ allowed: true });
    await redis.stop();

    const revoked = await nodes[0]!.request('POST', `/v1/admin/keys/${fixture.tenantKey.id}/revoke`, { token: session });
    expect(revoked.status).toBe(200);
    const version: number = revoked.body.ruleVersion;
    // The node that committed enforces its own change at once, Redis or not.
    expect((await checkWithKey(nodes[0]!)).body).toMatchObject({ allowed: false, reason: 'key_invalid', ruleVersion: version });
    expect(await versionOf(nodes[1]!)).toBe(version - 1);

    redis = await startRedisServer('ownership', redis.port); // empty
    await waitFor(
      () => everyNode(async (node) => (await checkWithKey(node)).body.reason === 'key_invalid' && (await versionOf(node)) === version),
      WITHIN_MS,
      100,
    );
    const client = new Redis(redis.url);
    try {
      expect(await new RuleSetStore(client).revision()).toMatchObject({ version });
    } finally {
      client.disconnect();
    }
  });

  it('puts the rule set back when it is deleted from Redis by hand', async () => {
    const client = new Redis(redis.url);
    try {
      const before = await new RuleSetStore(client).revision();
      await client.del(ruleSetKeys.ruleSet, ruleSetKeys.version, ruleSetKeys.revision);
      await waitFor(async () => (await new RuleSetStore(client).revision()) !== null, WITHIN_MS, 50);
      expect(await new RuleSetStore(client).revision()).toEqual(before);
      await client.flushall();
      await waitFor(async () => (await new RuleSetStore(client).revision()) !== null, WITHIN_MS, 50);
      expect(await new RuleSetStore(client).revision()).toEqual(before);
    } finally {
      client.disconnect();
    }
  });

  it('goes back to Postgres\'s newest version after Postgres is restored from an older backup', async () => {
    const kept = (await versionOf(nodes[0]!))!;
    for (let i = 0; i < 2; i += 1) {
      const r = await nodes[1]!.request('POST', '/v1/admin/keys', { token: session, body: { kind: 'service', name: `later ${i}` } });
      expect(r.status).toBe(201);
    }
    await waitFor(() => everyNode(async (node) => (await versionOf(node)) === kept + 2), WITHIN_MS, 50);

    // The restore: the versions after `kept` are gone from Postgres; Redis and the nodes still hold kept + 2.
    await prisma.ruleSetVersion.deleteMany({ where: { version: { gt: kept } } });
    await waitFor(() => everyNode(async (node) => (await versionOf(node)) === kept), WITHIN_MS, 50);

    // The next change takes a number used before the restore, and is enforced like any other.
    const next = await nodes[0]!.request('POST', '/v1/admin/keys', { token: session, body: { kind: 'service', name: 'after the restore' } });
    expect(next.body.ruleVersion).toBe(kept + 1);
    await waitFor(() => everyNode(async (node) => (await versionOf(node)) === kept + 1), WITHIN_MS, 50);
    for (const node of nodes) expect((await node.request('GET', '/health')).status).toBe(200);
  });
});

describe('a rule set in Redis that this installation did not commit', () => {
  let redis: RedisServer;
  let prisma: PrismaClient;
  let fixture: Awaited<ReturnType<typeof setUp>>;
  let client: Redis;
  let store: RuleSetStore;
  const started: TestApi[] = [];
  let version: number;
  let installation: string;

  beforeAll(async () => {
    redis = await startRedisServer('foreign');
    fixture = await setUp();
    prisma = fixture.prisma;
    version = (await publishRules(prisma, redis.url)).version;
    installation = await readInstallationId(prisma);
    client = new Redis(redis.url);
    store = new RuleSetStore(client);
  });
  afterAll(async () => {
    await Promise.all(started.map((n) => n.close()));
    client?.disconnect();
    await redis?.stop();
    await prisma?.$disconnect();
  });

  const start = async (env: Record<string, string> = {}) => {
    const node = await startApi({ DATABASE_URL: databaseUrl, REDIS_URL: redis.url, ...env });
    started.push(node);
    return node;
  };
  /** What another database (or this one before a restore) left in Redis. */
  const plant = async (ruleVersion: number, owner: string) => {
    const ruleSet = (await store.get())!;
    expect(await store.put({ ...ruleSet, version: ruleVersion, compiledAt: new Date().toISOString(), tenants: {} }, owner, await store.rawRevision())).toBe(true);
  };
  const check = (node: TestApi) => node.request('POST', '/v1/check', { token: fixture.service, body: { tenant: fixture.tenant.slug, endpoint: 'GET /v1/items' } });

  it('is never enforced by a running node, which reports the mismatch in /health until the owner replaces it', async () => {
    // This node does not reconcile on a timer: the foreign rule set stays in Redis until another node starts.
    const node = await start({ RULES_RECONCILE_MS: '3600000' });
    expect((await node.request('GET', '/health')).status).toBe(200);

    const other = randomUUID();
    await plant(16, other);
    await waitFor(async () => (await node.request('GET', '/health')).status === 503, WITHIN_MS, 50);
    const health = await node.request('GET', '/health');
    expect(health.body).toMatchObject({
      status: 'degraded',
      checks: { ruleSet: 'foreign' },
      ruleVersion: version,
      mismatch: { enforcing: { installation, version }, redis: { installation: other, version: 16 } },
    });
    // It goes on enforcing its own installation's version (the planted one has no tenants at all).
    expect((await check(node)).body).toMatchObject({ allowed: true, ruleVersion: version });
    // The operator's endpoints hear of it: one platform event for the refused revision.
    const refusals = async (reason: string) =>
      (await prisma.webhookEvent.findMany({ where: { type: 'platform.rule_set_rejected' } })).filter((e) => (e.data as { reason: string }).reason === reason);
    await waitFor(async () => (await refusals('foreign')).length > 0, WITHIN_MS, 50);
    expect((await refusals('foreign')).map((e) => e.data)).toEqual([{ reason: 'foreign', redis: expect.objectContaining({ installation: other, version: 16 }), enforcing: version }]);

    // A version of this installation that Postgres never committed (Redis ahead of a restored Postgres).
    await plant(version + 50, installation);
    await waitFor(async () => (await node.request('GET', '/health')).body.checks.ruleSet === 'not-committed', WITHIN_MS, 50);
    expect((await node.request('GET', '/health')).body.mismatch.redis).toEqual({ installation, version: version + 50 });
    expect((await check(node)).body).toMatchObject({ allowed: true, ruleVersion: version });
    await waitFor(async () => (await refusals('not-committed')).length > 0, WITHIN_MS, 50);
    expect((await refusals('not-committed')).map((e) => e.data)).toEqual([{ reason: 'not-committed', redis: expect.objectContaining({ installation, version: version + 50 }), enforcing: version }]);

    // Another node starts (as any node does at start, it puts Postgres's newest into Redis): both are healthy.
    const second = await start();
    await waitFor(async () => (await node.request('GET', '/health')).status === 200, WITHIN_MS, 50);
    expect(await store.revision()).toMatchObject({ installation, version });
    expect((await second.request('GET', '/health')).body).toMatchObject({ status: 'ok', ruleVersion: version });
  });

  it('is replaced when a fresh deployment starts on a Redis left with another database\'s newer version', async () => {
    await plant(16, randomUUID());
    const node = await start();
    expect((await node.request('GET', '/health')).body).toMatchObject({ status: 'ok', checks: { ruleSet: 'loaded' }, ruleVersion: version });
    expect((await check(node)).body).toMatchObject({ allowed: true, ruleVersion: version });
  });

  it('is replaced within seconds by the nodes\' own timers', async () => {
    await plant(16, randomUUID());
    await waitFor(async () => (await store.revision())?.installation === installation, WITHIN_MS, 50);
    expect(await store.revision()).toMatchObject({ installation, version });
  });
});
