import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../../../../test/support/env';
import type { LimitRule } from '../contract';
import { preparingEachCall } from '../prepared-rules';
import { globalWindowsKey, parseGlobalWindow, ruleKey, type GlobalWindow } from './keys';
import { RedisEngine } from './redis-engine';
import { regionWindow } from './region-allowance';
import { useSuiteRedis } from './redis-test-support';

// A fixed window that is one quota across regions (docs/adr/0025-one-quota-across-regions.md): the limit script admits
// against the region's allowance for the window, its share of the limit until the coordinator moves units with
// lua/region-allowance.lua. On the suite's Redis, which plays one region; windows of a day, whose edge no test meets.
describe('RedisEngine quotas across regions', () => {
  let redis: Redis;
  const tenants = useSuiteRedis(TEST_REDIS_URL, (client) => (redis = client));
  const day = 86_400_000;
  const tenant = () => {
    const id = `rg-${randomUUID()}`;
    tenants.push(id);
    return id;
  };
  const quota = (index: number, extra: Partial<LimitRule> = {}): LimitRule => ({ name: 'quota', algorithm: 'fixed_window', limit: 10, windowMs: day, regions: { index, count: 3 }, ...extra });
  const consumeOneByOne = async (tenantId: string, rule: LimitRule, times: number) => {
    const limiter = preparingEachCall(new RedisEngine(redis, { batch: false }));
    const allowed: boolean[] = [];
    for (let i = 0; i < times; i += 1) allowed.push((await limiter.consume({ tenantId, cost: 1, rules: [rule] })).allowed);
    return allowed.filter(Boolean).length;
  };
  /** The tenant's windows across regions that this Redis charged in, as the limit script named them. */
  const windowsOf = async (tenantId: string, rule: LimitRule): Promise<GlobalWindow[]> => {
    const members = await redis.zrange(globalWindowsKey(ruleKey(tenantId, rule, undefined)), '0', '-1');
    return members.map((m) => parseGlobalWindow(m)!);
  };
  const windowOf = (rule: LimitRule, tenantId: string): GlobalWindow => {
    const start = Date.now() - (Date.now() % day);
    return { start, end: start + day, limit: rule.limit, ruleKey: ruleKey(tenantId, rule, undefined) };
  };

  const read = { operation: 'read' } as const;

  it('admits the region\'s share until units are granted, counts its denials, and names the window for the coordinator', async () => {
    const tenantId = tenant();
    const rule = quota(0);
    expect(await consumeOneByOne(tenantId, rule, 6)).toBe(4);
    const [window, ...others] = await windowsOf(tenantId, rule);
    expect(others).toEqual([]);
    expect(window).toEqual(windowOf(rule, tenantId));
    expect(await regionWindow(redis, window!, 4, read)).toEqual({ count: 4, allowance: 4, denied: 2, generation: 0, moved: 0 });
    expect(await regionWindow(redis, window!, 4, { operation: 'grant', units: 5, generation: 0 })).toEqual({ count: 4, allowance: 9, denied: 2, generation: 1, moved: 5 });
    // A grant made on an earlier reading (one that came late) changes nothing.
    expect(await regionWindow(redis, window!, 4, { operation: 'grant', units: 5, generation: 0 })).toEqual({ count: 4, allowance: 9, denied: 2, generation: 1, moved: 0 });
    expect(await consumeOneByOne(tenantId, rule, 6)).toBe(5);
    // Never past the limit, whatever is asked.
    expect(await regionWindow(redis, window!, 4, { operation: 'grant', units: 5, generation: 1 })).toEqual({ count: 9, allowance: 10, denied: 3, generation: 2, moved: 1 });
    // A release keeps what the region admitted.
    expect(await regionWindow(redis, window!, 4, { operation: 'release', to: 0, generation: 2 })).toEqual({ count: 9, allowance: 9, denied: 3, generation: 3, moved: 1 });
    expect(await consumeOneByOne(tenantId, rule, 1)).toBe(0);
    const limiter = preparingEachCall(new RedisEngine(redis));
    expect((await limiter.peek({ tenantId, cost: 1, rules: [rule] })).rules[0]).toMatchObject({ limit: 10, remaining: 0 });
    // A peek's denial is no demand: nothing is written.
    expect(await regionWindow(redis, window!, 4, read)).toMatchObject({ denied: 4, generation: 3 });
  });

  it('releases a quiet region\'s share down to what it admitted, never raising it, and admits only what is left', async () => {
    const tenantId = tenant();
    const rule = quota(1);
    const window = windowOf(rule, tenantId);
    expect(await regionWindow(redis, window, 3, read)).toEqual({ count: 0, allowance: 3, denied: 0, generation: 0, moved: 0 });
    expect(await regionWindow(redis, window, 3, { operation: 'release', to: 1, generation: 0 })).toEqual({ count: 0, allowance: 1, denied: 0, generation: 1, moved: 2 });
    expect(await regionWindow(redis, window, 3, { operation: 'release', to: 3, generation: 1 })).toEqual({ count: 0, allowance: 1, denied: 0, generation: 1, moved: 0 });
    expect(await consumeOneByOne(tenantId, rule, 3)).toBe(1);
    expect(await regionWindow(redis, window, 3, { operation: 'release', to: 0, generation: 1 })).toEqual({ count: 1, allowance: 1, denied: 2, generation: 1, moved: 0 });
    // An allowance and its window's count expire with the window.
    const ttl = await redis.pttl(`${window.ruleKey}:al`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(day);
  });

  it('decides batched decisions (a run of repeated consumes) on the allowance, with their denials', async () => {
    const tenantId = tenant();
    const rule = quota(0);
    const limiter = preparingEachCall(new RedisEngine(redis));
    const decisions = await Promise.all(Array.from({ length: 8 }, () => limiter.consume({ tenantId, cost: 1, rules: [rule] })));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(4);
    expect(await regionWindow(redis, windowOf(rule, tenantId), 4, read)).toEqual({ count: 4, allowance: 4, denied: 4, generation: 0, moved: 0 });
  });

  it('shares a calendar quota the same way, beside a rule of the region alone', async () => {
    const tenantId = tenant();
    const daily = quota(2, { windowMs: 0, calendar: { unit: 'day', timeZone: 'Pacific/Chatham' } });
    const own: LimitRule = { name: 'own', algorithm: 'fixed_window', limit: 100, windowMs: day };
    const limiter = preparingEachCall(new RedisEngine(redis, { batch: false }));
    const allowed: boolean[] = [];
    for (let i = 0; i < 5; i += 1) allowed.push((await limiter.consume({ tenantId, cost: 1, rules: [own, daily] })).allowed);
    expect(allowed).toEqual([true, true, true, false, false]);
    const [window] = await windowsOf(tenantId, daily);
    expect(window).toMatchObject({ limit: 10, ruleKey: ruleKey(tenantId, daily, undefined) });
    expect(await regionWindow(redis, window!, 3, { operation: 'grant', units: 2, generation: 0 })).toMatchObject({ count: 3, allowance: 5, denied: 2, moved: 2 });
    expect((await limiter.consume({ tenantId, cost: 2, rules: [own, daily] })).rules.map((r) => r.remaining)).toEqual([95, 0]);
  });

  it('refuses an unknown operation', async () => {
    const tenantId = tenant();
    await expect(regionWindow(redis, windowOf(quota(0), tenantId), 4, { operation: 'steal' as 'read' })).rejects.toThrow(/unknown allowance operation/);
  });
});
