import { randomUUID } from 'node:crypto';
import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import type { RuleSet } from '@tollgate/domain';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDatabaseUrl, testRedisUrl } from '../../../test/support/env';
import { createTenant } from '../../../test/support/fixtures';
import { recreateDatabase } from '../../../test/support/stack';
import { readInstallationId } from './installation';
import { RuleSetReconciler } from './rule-set-reconciler';
import { ruleSetKeys, RuleSetStore } from './rule-set-store';
import { commitRuleSetVersion } from './versions';

// A database and a Redis database of this file's own: it deletes versions and empties Redis.
const databaseUrl = testDatabaseUrl('reconciler');
const redisUrl = testRedisUrl(5);

describe('RuleSetReconciler: Redis holds the newest rule set Postgres committed', () => {
  let prisma: PrismaClient;
  let redis: Redis;
  let store: RuleSetStore;
  let reconciler: RuleSetReconciler;
  let installation: string;
  // Each commit changes the rules (one more tenant): a commit that changes nothing publishes no version.
  const commit = async () => {
    await createTenant(prisma);
    return (await prisma.$transaction((tx) => commitRuleSetVersion(tx, 'test'))).ruleSet;
  };
  const stored = async () => JSON.parse((await redis.get(ruleSetKeys.ruleSet))!) as RuleSet;

  beforeAll(async () => {
    await recreateDatabase(databaseUrl);
    prisma = createPrismaClient(databaseUrl, { poolSize: 4 });
    redis = new Redis(redisUrl);
    store = new RuleSetStore(redis);
    reconciler = new RuleSetReconciler(prisma, store);
    installation = await readInstallationId(prisma);
    await createTenant(prisma);
  });
  afterAll(async () => {
    redis.disconnect();
    await prisma.$disconnect();
  });
  beforeEach(async () => {
    await redis.flushdb();
  });

  it('has an installation id made with the schema, the same on every read', async () => {
    expect(installation).toMatch(/^[0-9a-f-]{36}$/);
    expect(await readInstallationId(prisma)).toBe(installation);
  });

  it('compiles version 1 on a database without versions, publishes it into an empty Redis, then finds it in sync', async () => {
    const first = await reconciler.reconcile(installation);
    expect(first).toMatchObject({ outcome: 'published', version: 1, reason: 'missing', replaced: null });
    expect(await store.revision()).toMatchObject({ installation, version: 1 });
    expect((await stored()).installation).toBe(installation);
    expect(await reconciler.reconcile(installation)).toEqual({ outcome: 'in-sync', version: 1 });
  });

  it('replaces an older version, and announces the new revision', async () => {
    await reconciler.reconcile(installation);
    const subscriber = new Redis(redisUrl);
    const announced: string[] = [];
    await subscriber.subscribe(ruleSetKeys.channel);
    subscriber.on('message', (_channel, message: string) => announced.push(message));
    try {
      const next = await commit();
      expect(await reconciler.reconcile(installation)).toMatchObject({ outcome: 'published', version: next.version, reason: 'older' });
      await expect.poll(() => announced.length).toBe(1);
      expect(announced[0]).toBe(`${installation}/${next.version}/${next.compiledAt}`);
    } finally {
      subscriber.disconnect();
    }
  });

  it('replaces another installation\'s rule set, however new its version', async () => {
    const newest = await commit();
    const other = randomUUID();
    expect(await store.put({ ...newest, version: newest.version + 100 }, other, null)).toBe(true);
    expect(await reconciler.reconcile(installation)).toMatchObject({ outcome: 'published', reason: 'foreign', replaced: { installation: other, version: newest.version + 100 } });
    expect(await store.revision()).toEqual({ installation, version: newest.version, compiledAt: newest.compiledAt });
  });

  it('replaces a version Postgres does not have (restored from an older backup) with Postgres\'s newest', async () => {
    const kept = await commit();
    const lost = [await commit(), await commit()];
    await reconciler.reconcile(installation);
    expect((await store.revision())!.version).toBe(lost[1]!.version);
    // The restore: Postgres's newest is `kept` again.
    await prisma.ruleSetVersion.deleteMany({ where: { version: { gt: kept.version } } });
    expect(await reconciler.reconcile(installation)).toMatchObject({ outcome: 'published', version: kept.version, reason: 'not-committed' });
    expect(await store.revision()).toEqual({ installation, version: kept.version, compiledAt: kept.compiledAt });
    // The next commit takes a lost number again, with a compile of its own: not confused with the lost one.
    const again = await commit();
    expect(again.version).toBe(lost[0]!.version);
    expect(await reconciler.reconcile(installation, again)).toMatchObject({ outcome: 'published', reason: 'older' });
    await store.put({ ...lost[1]!, version: again.version }, installation, await store.rawRevision()); // a version of the same number from before the restore
    expect(await reconciler.reconcile(installation)).toMatchObject({ outcome: 'published', version: again.version, reason: 'not-committed' });
    expect((await store.revision())!.compiledAt).toBe(again.compiledAt);
  });

  it('replaces an unreadable revision, and a rule set written without one', async () => {
    await redis.set(ruleSetKeys.revision, 'not a revision');
    expect(await reconciler.reconcile(installation)).toMatchObject({ outcome: 'published', reason: 'unreadable' });
    await redis.del(ruleSetKeys.revision);
    expect(await reconciler.reconcile(installation)).toMatchObject({ outcome: 'published', reason: 'missing' });
  });

  it('leaves a newer committed version in Redis when asked to publish an older one (two commits racing)', async () => {
    const older = await commit();
    const newer = await commit();
    await reconciler.reconcile(installation, newer);
    expect(await reconciler.reconcile(installation, older)).toEqual({ outcome: 'newer-in-redis', version: newer.version });
    expect((await store.revision())!.version).toBe(newer.version);
  });

  it('ends with the newest version in Redis whatever the order of concurrent publishes (compare-and-set on the revision)', async () => {
    const versions: RuleSet[] = [];
    for (let i = 0; i < 8; i += 1) versions.push(await commit());
    const clients = versions.map(() => new Redis(redisUrl));
    try {
      const publishers = versions.map((v, i) => ({ v, r: new RuleSetReconciler(prisma, new RuleSetStore(clients[i]!)) })).sort(() => Math.random() - 0.5);
      const results = await Promise.all([...publishers.map(({ v, r }) => r.reconcile(installation, v)), reconciler.reconcile(installation)]);
      expect(results.every((r) => ['published', 'newer-in-redis', 'in-sync'].includes(r.outcome))).toBe(true);
      expect((await store.revision())!.version).toBe(versions.at(-1)!.version);
    } finally {
      for (const c of clients) c.disconnect();
    }
  });
});
