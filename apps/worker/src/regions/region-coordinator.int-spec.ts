import { randomUUID } from 'node:crypto';
import { allowanceKey, globalWindowsKey, type LimitRule, preparingEachCall, RedisEngine, regionWindow, ruleKey } from '@tollgate/limiter';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL, testRedisUrl } from '../../../../test/support/env';
import { freePort } from '../../../../test/support/stack';
import { RegionCoordinator, type RegionLink } from './region-coordinator';

// The coordinator on two regions' Redis (two databases of the suite's redis-server, keyspaces of their own): it moves a quiet region's share to
// the busy one, keeps a region that does not answer reserved, and keeps a grant whose answer was lost held, so the
// allowances never add up to more than the limit (docs/adr/0025-one-quota-across-regions.md). Windows of a day.
describe('RegionCoordinator', () => {
  let a: Redis;
  let b: Redis;
  const tenants: string[] = [];
  const day = 86_400_000;
  const quota = (index: number): LimitRule => ({ name: 'quota', algorithm: 'fixed_window', limit: 10, windowMs: day, regions: { index, count: 2 } });

  beforeAll(async () => {
    a = new Redis(TEST_REDIS_URL);
    b = new Redis(testRedisUrl(14));
  });
  afterAll(async () => {
    for (const id of tenants) {
      const key = ruleKey(id, quota(0), undefined);
      for (const redis of [a, b]) await redis.del(key, allowanceKey(key), globalWindowsKey(key));
    }
    a.disconnect();
    b.disconnect();
  });

  const tenant = () => {
    const id = `co-${randomUUID()}`;
    tenants.push(id);
    return id;
  };
  /** Consumes one at a time in a region: how many were admitted. */
  const consume = async (redis: Redis, tenantId: string, index: number, times: number) => {
    const limiter = preparingEachCall(new RedisEngine(redis, { batch: false }));
    let admitted = 0;
    for (let i = 0; i < times; i += 1) if ((await limiter.consume({ tenantId, cost: 1, rules: [quota(index)] })).allowed) admitted += 1;
    return admitted;
  };
  const windowOf = (tenantId: string) => {
    const start = Date.now() - (Date.now() % day);
    return { start, end: start + day, limit: 10, ruleKey: ruleKey(tenantId, quota(0), undefined) };
  };
  const allowances = async (tenantId: string) => {
    const read = { operation: 'read' } as const;
    return [(await regionWindow(a, windowOf(tenantId), 5, read)).allowance, (await regionWindow(b, windowOf(tenantId), 5, read)).allowance];
  };
  const coordinator = (tenantId: string, links: RegionLink[]) => new RegionCoordinator(links, { tenants: async () => [tenantId] });

  it('gives the busy region what the quiet one does not use, never more than the limit in all', async () => {
    const tenantId = tenant();
    expect(await consume(a, tenantId, 0, 8)).toBe(5);
    const report = await coordinator(tenantId, [{ name: 'a', client: a }, { name: 'b', client: b }]).round();
    expect(report).toMatchObject({ windows: 1, unreachable: [] });
    expect(report.released).toBeGreaterThan(0);
    expect(report.granted).toBe(report.released);
    const [held, quiet] = await allowances(tenantId);
    expect(held! + quiet!).toBe(10);
    expect(held).toBeGreaterThan(5);
    // Both regions admit no more than that, together at most the limit.
    expect((await consume(a, tenantId, 0, 10)) + (await consume(b, tenantId, 1, 10))).toBe(10 - 5);
  });

  it('keeps a region that does not answer reserved at its share', async () => {
    const tenantId = tenant();
    const away = new Redis(`redis://127.0.0.1:${await freePort()}`, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    away.on('error', () => undefined);
    try {
      expect(await consume(a, tenantId, 0, 8)).toBe(5);
      const report = await coordinator(tenantId, [{ name: 'a', client: a }, { name: 'b', client: away }]).round();
      expect(report).toMatchObject({ windows: 1, released: 0, granted: 0, unreachable: ['b'] });
      expect((await allowances(tenantId))[0]).toBe(5);
    } finally {
      away.disconnect();
    }
  });

  it('keeps a grant whose answer was lost held until a later call makes it stale, even when it lands late', async () => {
    const tenantId = tenant();
    // Region a's link loses the answer of grants, which it runs only when the test lets them (late).
    const late: (() => Promise<unknown>)[] = [];
    let losing = true;
    const hold = <T extends unknown[]>(run: (...args: T) => Promise<unknown>) => async (...args: T) => {
      if (losing && args[4] === 'grant') {
        late.push(() => run(...args));
        throw new Error('the answer was lost');
      }
      return run(...args);
    };
    const lossy: RegionLink['client'] = {
      evalsha: hold((sha: string, numKeys: number, ...args: (string | number)[]) => a.evalsha(sha, numKeys, ...args)),
      eval: hold((script: string, numKeys: number, ...args: (string | number)[]) => a.eval(script, numKeys, ...args)),
      zrangebyscore: (key, min, max) => a.zrangebyscore(key, min, max),
    };
    const links = coordinator(tenantId, [{ name: 'a', client: lossy }, { name: 'b', client: b }]);

    let admitted = await consume(a, tenantId, 0, 8);
    expect(admitted).toBe(5);
    const first = await links.round();
    expect(late).toHaveLength(1);
    expect(first.granted).toBe(0);
    losing = false;
    // Now region b is the busy one: the units b released stay held for a's lost grant, not granted to b.
    admitted += await consume(b, tenantId, 1, 5);
    await links.round();
    // The lost grant lands after all: the allowances still add up to at most the limit.
    await late[0]!();
    const [held, other] = await allowances(tenantId);
    expect(held).toBeGreaterThan(5);
    expect(held! + other!).toBeLessThanOrEqual(10);
    admitted += (await consume(a, tenantId, 0, 10)) + (await consume(b, tenantId, 1, 10));
    expect(admitted).toBeLessThanOrEqual(10);
  });

  it('after a restart, reserves for a region it never heard from all that the others do not hold', async () => {
    const tenantId = tenant();
    // Region b was the busy one: the coordinator gave it most of a's share.
    let admitted = await consume(a, tenantId, 0, 1);
    admitted += await consume(b, tenantId, 1, 8);
    await coordinator(tenantId, [{ name: 'a', client: a }, { name: 'b', client: b }]).round();
    expect(await allowances(tenantId)).toEqual([2, 8]);
    // A new coordinator (restarted) cannot reach b, whose grant it never saw; region a becomes busy.
    const away = new Redis(`redis://127.0.0.1:${await freePort()}`, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    away.on('error', () => undefined);
    try {
      admitted += await consume(a, tenantId, 0, 5);
      const report = await coordinator(tenantId, [{ name: 'a', client: a }, { name: 'b', client: away }]).round();
      expect(report).toMatchObject({ granted: 0, unreachable: ['b'] });
    } finally {
      away.disconnect();
    }
    admitted += (await consume(a, tenantId, 0, 10)) + (await consume(b, tenantId, 1, 10));
    expect(admitted).toBe(10);
  });
});
