import { preparingEachCall } from '../prepared-rules';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../../../../test/support/env';
import { ManualClock } from '../clock';
import { ALGORITHMS, type AlgorithmName, type LimitRule } from '../contract';
import { hashTagOf, tenantTag } from './keys';
import type { ScriptClient } from '@tollgate/lua-script';
import { RedisEngine } from './redis-engine';
import { deleteTenantKeys, tenantIds, tenantKeys } from './redis-test-support';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Capacity `units`, refilled or slid over a day: nothing comes back during a test on Redis's real clock. */
const daily = (algorithm: AlgorithmName, units: number): LimitRule => ({ name: algorithm, algorithm, limit: units, windowMs: DAY });

/** A ScriptClient that records the keys of every call (and can rewrite its ARGV). */
function recording(redis: Redis, rewrite: (args: (string | number)[]) => (string | number)[] = (a) => a) {
  const calls: string[][] = [];
  const fallbacks = { count: 0 };
  const client: ScriptClient = {
    evalsha: (sha, numKeys, ...rest) => {
      calls.push(rest.slice(0, numKeys).map(String));
      return redis.evalsha(sha, numKeys, ...rest.slice(0, numKeys), ...rewrite(rest.slice(numKeys)));
    },
    eval: (script, numKeys, ...rest) => {
      fallbacks.count += 1;
      calls.push(rest.slice(0, numKeys).map(String));
      return redis.eval(script, numKeys, ...rest.slice(0, numKeys), ...rewrite(rest.slice(numKeys)));
    },
  };
  return { client, calls, fallbacks };
}

describe('RedisEngine on Redis TIME', () => {
  let redis: Redis;
  let clients: Redis[];
  const tenants: string[] = [];
  const tenant = tenantIds(tenants, 's');
  beforeAll(async () => {
    redis = new Redis(TEST_REDIS_URL);
    clients = Array.from({ length: 4 }, () => new Redis(TEST_REDIS_URL));
    // Stay clear of a UTC midnight, where a daily fixed window would start again during a test.
    const toMidnight = DAY - (Date.now() % DAY);
    if (toMidnight < 20_000) await new Promise((r) => setTimeout(r, toMidnight + 100));
  });
  afterAll(async () => {
    await deleteTenantKeys(redis, tenants);
    for (const c of [redis, ...clients]) c.disconnect();
  });

  it('decides on Redis TIME', async () => {
    const before = Date.now();
    const d = await preparingEachCall(new RedisEngine(redis)).consume({ tenantId: tenant(), cost: 1, rules: [daily('gcra', 5)] });
    expect(d.allowed).toBe(true);
    expect(Math.abs(d.nowMs - before)).toBeLessThan(1000);
  });

  it.each(ALGORITHMS)('%s: 1000 concurrent checks of cost 1 against 100 admit exactly 100', async (algorithm) => {
    const t = tenant();
    const rules = [daily(algorithm, 100)];
    const ds = await Promise.all(Array.from({ length: 1000 }, (_, i) => preparingEachCall(new RedisEngine(clients[i % 4]!)).consume({ tenantId: t, cost: 1, rules })));
    expect(ds.filter((d) => d.allowed)).toHaveLength(100);
  });

  it.each(ALGORITHMS)('%s: 300 concurrent checks of cost 7 against 1000 admit exactly 142', async (algorithm) => {
    const t = tenant();
    const rules = [daily(algorithm, 1000)];
    const ds = await Promise.all(Array.from({ length: 300 }, (_, i) => preparingEachCall(new RedisEngine(clients[i % 4]!)).consume({ tenantId: t, cost: 7, rules })));
    expect(ds.filter((d) => d.allowed)).toHaveLength(142);
  });

  it('SCRIPT FLUSH during load: no errors, admission still exact', async () => {
    const t = tenant();
    const rules = ALGORITHMS.map((a) => daily(a, 100));
    const flusher = new Redis(TEST_REDIS_URL);
    const engines = clients.map((c) => recording(c));
    try {
      const checks = Array.from({ length: 600 }, async (_, i) => {
        if (i % 100 === 0) await flusher.script('FLUSH');
        return preparingEachCall(new RedisEngine(engines[i % 4]!.client)).consume({ tenantId: t, cost: 1, rules });
      });
      const ds = await Promise.all(checks);
      expect(ds.filter((d) => d.allowed)).toHaveLength(100);
      expect(engines.reduce((n, e) => n + e.fallbacks.count, 0)).toBeGreaterThan(0); // NOSCRIPT did happen
    } finally {
      flusher.disconnect();
    }
  });

  it('sends every key of a call in the tenant\'s one hash tag, and writes only keys in it', async () => {
    const t = tenant();
    const { client, calls } = recording(redis);
    const engine = preparingEachCall(new RedisEngine(client));
    const rules = [...ALGORITHMS.map((a) => daily(a, 10)), { name: 'cal', algorithm: 'fixed_window' as const, limit: 5, windowMs: 0, calendar: { unit: 'month' as const, timeZone: 'Europe/Berlin' } }];
    for (const subject of [undefined, 'a:{b}:c', '{', '}']) {
      await engine.consume({ tenantId: t, subject, cost: 1, rules: rules.filter((r) => r.algorithm !== 'leaky_bucket_shaper') });
      await engine.lease({ tenantId: t, subject, max: 2, rules: rules.filter((r) => r.algorithm !== 'leaky_bucket_shaper') });
      await engine.peek({ tenantId: t, subject, cost: 1, rules });
      await engine.refund({ tenantId: t, subject, cost: 1, rules });
    }
    expect(calls).toHaveLength(16);
    for (const keys of calls) expect(new Set(keys.map(hashTagOf))).toEqual(new Set([tenantTag(t)]));
    const written = await tenantKeys(redis, [t]);
    expect(written.length).toBeGreaterThan(0);
    for (const key of written) expect(hashTagOf(key)).toBe(tenantTag(t));
    expect(written.join()).not.toMatch(/a:\{b\}|user|\{\{|\}\}/);
  });

  it('a calendar day follows Redis\'s clock when the caller\'s clock is off at midnight', async () => {
    const rule: LimitRule = { name: 'daily', algorithm: 'fixed_window', limit: 3, windowMs: 0, calendar: { unit: 'day', timeZone: 'America/New_York' } };
    const callerNow = Date.parse('2031-05-01T23:59:45-04:00');
    // The caller thinks it is 15 s before midnight; "Redis" (the now the script gets) is 15 s past it.
    const ahead = recording(redis, (args) => [Number(args[0]) + 30_000, ...args.slice(1)]);
    const t = tenant();
    const d = await preparingEachCall(new RedisEngine(ahead.client, { clock: new ManualClock(callerNow) })).consume({ tenantId: t, cost: 1, rules: [rule] });
    expect(d).toMatchObject({ nowMs: callerNow + 30_000, rules: [{ remaining: 2, resetMs: DAY - 15_000 }] });
    // And the other way round: the caller is past midnight, "Redis" still 15 s before it.
    const behind = recording(redis, (args) => [Number(args[0]) - 30_000, ...args.slice(1)]);
    const late = await preparingEachCall(new RedisEngine(behind.client, { clock: new ManualClock(callerNow + 30_000) })).consume({ tenantId: tenant(), cost: 1, rules: [rule] });
    expect(late).toMatchObject({ nowMs: callerNow, rules: [{ remaining: 2, resetMs: 15_000 }] });
  });
});
