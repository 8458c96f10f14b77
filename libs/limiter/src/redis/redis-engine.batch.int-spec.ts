import { preparingEachCall, type RuleListLimiter } from '../prepared-rules';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../../../../test/support/env';
import { ManualClock } from '../clock';
import type { Decision, Lease, LimitRule } from '../contract';
import { MemoryEngine } from '../memory/memory-engine';
import { hashTagOf, tenantTag } from './keys';
import type { ScriptClient } from '@tollgate/lua-script';
import { MAX_BATCH, RedisEngine } from './redis-engine';
import { deleteTenantKeys, tenantIds, tenantKeys } from './redis-test-support';

// Decisions of one tenant asked for in the same turn share one script call (RedisEngineOptions.batch).
describe('RedisEngine batches concurrent decisions of a tenant', () => {
  let redis: Redis;
  const tenants: string[] = [];
  const tenant = tenantIds(tenants, 'b');
  beforeAll(async () => {
    redis = new Redis(TEST_REDIS_URL);
    // The script in Redis's cache first: calls sent before the first one is answered would all find it missing
    // (NOSCRIPT) and be sent again by EVAL, which the tests that count calls would count twice.
    await preparingEachCall(new RedisEngine(redis)).consume({ tenantId: tenant(), cost: 1, rules: [{ name: 'warm', algorithm: 'fixed_window', limit: 1, windowMs: 1_000 }] });
  });
  afterAll(async () => {
    await deleteTenantKeys(redis, tenants);
    redis.disconnect();
  });

  /** A client that counts script calls and the keys of each. */
  function counting(fail = false) {
    const calls: string[][] = [];
    const client: ScriptClient = {
      evalsha: (sha, numKeys, ...rest) => {
        calls.push(rest.slice(0, numKeys).map(String));
        return fail ? Promise.reject(new Error('connection lost')) : redis.evalsha(sha, numKeys, ...rest);
      },
      eval: (script, numKeys, ...rest) => {
        calls.push(rest.slice(0, numKeys).map(String));
        return redis.eval(script, numKeys, ...rest);
      },
    };
    return { client, calls };
  }

  const rules: LimitRule[] = [
    { name: 'second', algorithm: 'token_bucket', limit: 1_000, windowMs: 1_000 },
    { name: 'minute', algorithm: 'fixed_window', limit: 100, windowMs: 60_000 },
  ];

  it('admits exactly the limit out of 300 concurrent requests, in a handful of calls', async () => {
    const t = tenant();
    const { client, calls } = counting();
    const engine = preparingEachCall(new RedisEngine(client));
    const decisions = await Promise.all(Array.from({ length: 300 }, (_, i) => engine.consume({ tenantId: t, subject: 'hot', cost: 1, rules: i % 2 ? rules : [...rules].reverse() })));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(100);
    expect(calls.length).toBe(Math.ceil(300 / MAX_BATCH));
    for (const keys of calls) expect(new Set(keys.map(hashTagOf))).toEqual(new Set([tenantTag(t)]));
  });

  it('never mixes tenants in a call, and without batching makes one call per decision', async () => {
    const [a, b] = [tenant(), tenant()];
    const { client, calls } = counting();
    const engine = preparingEachCall(new RedisEngine(client));
    await Promise.all([a, b, a, b].map((tenantId) => engine.consume({ tenantId, subject: 's', cost: 1, rules })));
    expect(calls).toHaveLength(2);
    for (const keys of calls) expect(new Set(keys.map(hashTagOf)).size).toBe(1);
    const single = counting();
    const unbatched = preparingEachCall(new RedisEngine(single.client, { batch: false }));
    await Promise.all([a, a, a].map((tenantId) => unbatched.consume({ tenantId, subject: 's', cost: 1, rules })));
    expect(single.calls).toHaveLength(3);
  });

  it('makes a batch of mixed operations exactly as the memory engine makes them one after another', async () => {
    const t = tenant();
    const clock = new ManualClock(Date.UTC(2026, 10, 30, 12, 0, 1));
    const { client, calls } = counting();
    const engine = preparingEachCall(new RedisEngine(client, { clock }));
    const memory = preparingEachCall(new MemoryEngine({ clock }));
    const mixed: LimitRule[] = [...rules, { name: 'gcra', algorithm: 'gcra', limit: 3, windowMs: 1_000, burst: 5 }];
    const steps = (e: RuleListLimiter): Promise<Decision | Lease>[] => [
      e.consume({ tenantId: t, subject: 'x', cost: 2, rules: mixed }),
      e.peek({ tenantId: t, subject: 'x', cost: 3, rules: mixed }),
      e.lease({ tenantId: t, subject: 'x', max: 5, rules: mixed }),
      e.consume({ tenantId: t, subject: 'x', cost: 1, rules: mixed }),
      e.refund({ tenantId: t, subject: 'x', cost: 2, rules: mixed }),
      e.consume({ tenantId: t, subject: 'y', cost: 5, rules: mixed }),
      e.consume({ tenantId: t, subject: 'x', cost: 2, rules: mixed }),
    ];
    const fromRedis = await Promise.all(steps(engine));
    const fromMemory: (Decision | Lease)[] = [];
    for (const step of steps(memory)) fromMemory.push(await step);
    expect(calls).toHaveLength(1);
    expect(fromRedis).toEqual(fromMemory);
  });

  it('sends the rules of a decision once when the one before it had the same (the script reads them there)', async () => {
    const t = tenant();
    const clock = new ManualClock(Date.UTC(2026, 10, 30, 23, 59, 59));
    const sent: (string | number)[][] = [];
    const client: ScriptClient = {
      evalsha: (sha, numKeys, ...rest) => {
        sent.push(rest.slice(numKeys));
        return redis.evalsha(sha, numKeys, ...rest);
      },
      eval: (script, numKeys, ...rest) => redis.eval(script, numKeys, ...rest),
    };
    const engine = preparingEachCall(new RedisEngine(client, { clock }));
    const memory = preparingEachCall(new MemoryEngine({ clock }));
    const daily: LimitRule[] = [{ name: 'day', algorithm: 'fixed_window', limit: 3, windowMs: 0, calendar: { unit: 'day', timeZone: 'Europe/Berlin' } }];
    const other: LimitRule[] = [{ name: 'sw', algorithm: 'sliding_window', limit: 4, windowMs: 1_000 }];
    const order = [rules, rules, other, rules, daily, daily, other, other, rules];
    const steps = (e: RuleListLimiter) => order.map((r, i) => e.consume({ tenantId: t, subject: `s${i % 2}`, cost: 1, rules: r }));
    const fromRedis = await Promise.all(steps(engine));
    const fromMemory: Decision[] = [];
    for (const step of steps(memory)) fromMemory.push(await step);
    expect(fromRedis).toEqual(fromMemory);
    expect(sent).toHaveLength(1);
    // Per decision: operation, cost, then the number of rules and their ARGV, or '=' for the same as before:
    // decisions 2, 6 (the same calendar window) and 8.
    expect(sent[0]?.filter((arg) => arg === '=')).toHaveLength(3);
  });

  it('sends no keys for a decision on the keys of the one before (\'==\'), nothing but a count for its repeats (\'+\')', async () => {
    const t = tenant();
    const clock = new ManualClock(Date.UTC(2026, 10, 30, 12, 0, 1));
    const sent: { keys: string[]; args: (string | number)[] }[] = [];
    const client: ScriptClient = {
      evalsha: (sha, numKeys, ...rest) => {
        sent.push({ keys: rest.slice(0, numKeys).map(String), args: rest.slice(numKeys) });
        return redis.evalsha(sha, numKeys, ...rest);
      },
      eval: (script, numKeys, ...rest) => redis.eval(script, numKeys, ...rest),
    };
    const engine = preparingEachCall(new RedisEngine(client, { clock }));
    const memory = preparingEachCall(new MemoryEngine({ clock }));
    // Tenant-wide (no subject) decisions of one tenant, as a plan's limits are, and one of a subject between.
    const asked: { subject?: string; cost: number }[] = [{ cost: 40 }, { cost: 40 }, { cost: 10 }, { subject: 'x', cost: 40 }, { cost: 40 }, { cost: 40 }];
    const steps = (e: RuleListLimiter) => asked.map((a) => e.consume({ tenantId: t, ...a, rules }));
    const fromRedis = await Promise.all(steps(engine));
    const fromMemory: Decision[] = [];
    for (const step of steps(memory)) fromMemory.push(await step);
    expect(fromRedis).toEqual(fromMemory);
    expect(fromRedis.map((d) => d.allowed)).toEqual([true, true, true, true, false, false]);
    expect(sent).toHaveLength(1);
    const args = sent[0]!.args;
    // 2 repeats 1 ('+', 1); 3 has 1's keys at another cost ('=='); 4 and 5 have keys of their own; 6 repeats 5.
    expect(args.filter((arg) => arg === '+')).toHaveLength(2);
    expect(args.filter((arg) => arg === '==')).toHaveLength(1);
    // Three decisions' keys: a fixed window's two (its state and the counter earlier versions kept), one of each other rule.
    expect(sent[0]!.keys).toHaveLength(3 * (rules.length + rules.filter((rule) => rule.algorithm === 'fixed_window').length));
  });

  it('decides a run of repeats on views of its rules, leaving the state one call per decision leaves, for every algorithm', async () => {
    // A run ('+') of consumes reads each rule once, decides on the views and writes each rule once at its end (see
    // decideRun in lua/includes/decide.lua); a run with a sliding log is made one decision at a time. The same turns of
    // decisions, batched and one call at a time, on two tenants and two clocks stepped alike: the same decisions,
    // the same state in Redis, every key with its TTL. Denials inside runs, by each rule, and a new window's key
    // that a denial deletes again (and the next decision of the run creates again) are among them.
    const [batchedTenant, aloneTenant] = [tenant(), tenant()];
    const start = Date.UTC(2026, 10, 30, 12, 0, 59, 950);
    const [batchedClock, aloneClock] = [new ManualClock(start), new ManualClock(start)];
    const bucketFirst: LimitRule[] = [
      { name: 'second', algorithm: 'token_bucket', limit: 10, windowMs: 1_000 },
      { name: 'minute', algorithm: 'fixed_window', limit: 25, windowMs: 60_000 },
      { name: 'gcra', algorithm: 'gcra', limit: 100, windowMs: 1_000, burst: 40 },
    ];
    const windowFirst: LimitRule[] = [
      { name: 'wide', algorithm: 'token_bucket', limit: 100, windowMs: 1_000 },
      { name: 'narrow', algorithm: 'fixed_window', limit: 5, windowMs: 60_000 },
    ];
    const counters: LimitRule[] = [
      { name: 'sliding', algorithm: 'sliding_window', limit: 9, windowMs: 1_000 },
      { name: 'leaky', algorithm: 'leaky_bucket', limit: 5, windowMs: 1_000, burst: 7 },
      { name: 'gcra', algorithm: 'gcra', limit: 10, windowMs: 1_000, burst: 4 },
    ];
    const leakyFirst: LimitRule[] = [
      { name: 'meter', algorithm: 'leaky_bucket', limit: 5, windowMs: 1_000, burst: 3 },
      { name: 'wide', algorithm: 'sliding_window', limit: 20, windowMs: 1_000 },
    ];
    const slidingFirst: LimitRule[] = [
      { name: 'narrow', algorithm: 'sliding_window', limit: 4, windowMs: 1_000 },
      { name: 'wide', algorithm: 'gcra', limit: 100, windowMs: 1_000, burst: 50 },
    ];
    const shaped: LimitRule[] = [
      { name: 'shaper', algorithm: 'leaky_bucket_shaper', limit: 10, windowMs: 1_000, burst: 8 },
      { name: 'day', algorithm: 'fixed_window', limit: 12, windowMs: 0, calendar: { unit: 'day', timeZone: 'Europe/Berlin' } },
    ];
    const logged: LimitRule[] = [
      { name: 'log', algorithm: 'sliding_log', limit: 4, windowMs: 1_000 },
      { name: 'hour', algorithm: 'fixed_window', limit: 50, windowMs: 3_600_000 },
    ];
    const { client, calls } = counting();
    const batched = preparingEachCall(new RedisEngine(client, { clock: batchedClock }));
    const alone = preparingEachCall(new RedisEngine(redis, { clock: aloneClock, batch: false }));
    const memory = preparingEachCall(new MemoryEngine({ clock: aloneClock }));
    // Per turn: the clock's step before it (ms), the rules, then the costs asked for together (tenant-wide, or
    // 's': cost 1 for a subject).
    const turns: [number, LimitRule[], (number | 's')[]][] = [
      [0, bucketFirst, [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]], // the bucket (10) empties inside the run: 10 admitted, 2 denied
      [60, bucketFirst, [1, 1, 1, 1]], // a new minute, the bucket still empty: the new window's key comes and goes again
      [50, bucketFirst, [1, 1, 1, 2, 2, 's', 's']], // one token back: 1 admitted, the rest denied by the bucket
      [0, windowFirst, [1, 1, 1, 1, 1, 1, 1, 1, 's', 's']], // the window (5) fills inside the run, the bucket has plenty
      [1_000, windowFirst, [2, 2, 2, 1, 1]],
      [0, counters, [1, 1, 1, 1, 1, 1]], // the GCRA (burst 4) denies inside the run
      [300, counters, [1, 1, 1, 1, 1, 1]], // three back: the GCRA again
      [0, leakyFirst, [1, 1, 1, 1, 1]], // the leaky bucket (3) fills inside the run
      [300, slidingFirst, [1, 1, 1, 2, 2, 's', 's']], // the sliding window (4) denies
      [0, shaped, [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]], // the shaper (8) fills: each admission is told its delay
      [1_000, shaped, [1, 1, 1, 1, 1, 1]], // the shaper empty again, the day's window (12) fills
      [0, logged, [1, 1, 1, 1, 1, 1]], // a run with a sliding log: one decision at a time
      [1_000, logged, [2, 2, 1]],
    ];
    const request = (rules: LimitRule[], cost: number | 's') => ({ cost: cost === 's' ? 1 : cost, ...(cost === 's' ? { subject: 'y' } : {}), rules });
    const allowed: boolean[][] = [];
    const keysSeen: string[] = [];
    const state = async (t: string) => {
      const keys = (await tenantKeys(redis, [t])).sort((a, b) => a.localeCompare(b));
      return Promise.all(
        keys.map(async (key) => ({
          key: key.slice(key.indexOf('}') + 1),
          value: (await redis.type(key)) === 'zset' ? await redis.zrange(key, '0', '-1', 'WITHSCORES') : await redis.get(key),
          ttl: await redis.pttl(key),
        })),
      );
    };
    for (const [step, rules, costs] of turns) {
      batchedClock.advance(step);
      aloneClock.advance(step);
      const fromBatch = await Promise.all(costs.map((c) => batched.consume({ tenantId: batchedTenant, ...request(rules, c) })));
      const fromAlone: Decision[] = [];
      const fromMemory: Decision[] = [];
      for (const c of costs) {
        fromAlone.push(await alone.consume({ tenantId: aloneTenant, ...request(rules, c) }));
        fromMemory.push(await memory.consume({ tenantId: aloneTenant, ...request(rules, c) }));
      }
      expect(fromBatch).toEqual(fromAlone);
      expect(fromBatch).toEqual(fromMemory);
      allowed.push(fromBatch.map((d) => d.allowed));
      // The same state after every turn: every key's value (a sorted set's members), every key with a TTL, the TTLs
      // within the real time between the two (an injected clock's TTLs count on Redis's).
      const [afterBatch, afterAlone] = [await state(batchedTenant), await state(aloneTenant)];
      expect(afterBatch.map(({ key, value }) => ({ key, value }))).toEqual(afterAlone.map(({ key, value }) => ({ key, value })));
      for (const [i, k] of afterBatch.entries()) {
        expect(k.ttl).toBeGreaterThan(0);
        expect(Math.abs(k.ttl - afterAlone[i]!.ttl)).toBeLessThan(2_000);
        keysSeen.push(k.key);
      }
    }
    const T = true;
    const F = false;
    expect(allowed).toEqual([
      [T, T, T, T, T, T, T, T, T, T, F, F],
      [F, F, F, F],
      [T, F, F, F, F, T, T],
      [T, T, T, T, T, F, F, F, T, T],
      [F, F, F, F, F],
      [T, T, T, T, F, F],
      [T, T, T, F, F, F],
      [T, T, T, F, F],
      [T, T, T, F, F, T, T],
      [T, T, T, T, T, T, T, T, F, F],
      [T, T, T, T, F, F],
      [T, T, T, T, F, F],
      [T, T, F],
    ]);
    expect(calls).toHaveLength(turns.length);
    expect(keysSeen).toEqual(expect.arrayContaining([/^:tb\d*:second:/, /^:fw:minute:/, /^:sw:sliding:/, /^:lb\d*:leaky:/, /^:gc\d*:gcra:/, /^:ls\d*:shaper:/, /^:fw:day:/, /^:sl:log:/].map((re) => expect.stringMatching(re))));
  });

  it('fails every decision of a call whose script call fails, and a bad request alone', async () => {
    const t = tenant();
    const engine = preparingEachCall(new RedisEngine(counting(true).client));
    const results = await Promise.allSettled([
      engine.consume({ tenantId: t, cost: 1, rules }),
      engine.consume({ tenantId: t, cost: 1, rules }),
      engine.consume({ tenantId: t, cost: 0, rules }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(results.slice(0, 2).map((r) => (r as PromiseRejectedResult).reason.message)).toEqual(['connection lost', 'connection lost']);
    expect((results[2] as PromiseRejectedResult).reason.name).toBe('InvalidLimitRequestError');
  });

  it('runs each script call once through the guard (a circuit breaker), whose refusal fails every decision of the call', async () => {
    const t = tenant();
    const { client, calls } = counting();
    let guarded = 0;
    let refuse = false;
    const engine = preparingEachCall(new RedisEngine(client, {
      guard: (call) => {
        guarded += 1;
        return refuse ? Promise.reject(new Error('circuit open')) : call();
      },
    }));
    const admitted = await Promise.all([1, 2, 3].map(() => engine.consume({ tenantId: t, cost: 1, rules })));
    expect(admitted.map((d) => d.allowed)).toEqual([true, true, true]);
    expect([guarded, calls.length]).toEqual([1, 1]);
    refuse = true;
    const refused = await Promise.allSettled([1, 2, 3].map(() => engine.consume({ tenantId: t, cost: 1, rules })));
    expect(refused.map((r) => (r as PromiseRejectedResult).reason?.message)).toEqual(['circuit open', 'circuit open', 'circuit open']);
    expect([guarded, calls.length]).toEqual([2, 1]); // refused before Redis: nothing sent, nothing charged
    refuse = false;
    expect((await engine.peek({ tenantId: t, cost: 1, rules })).rules[1]?.remaining).toBe(100 - 3 - 1); // a peek answers as if charged
  });
});
