import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../../../../test/support/env';
import { ManualClock } from '../clock';
import type { Decision, Lease, LimitRule } from '../contract';
import { MemoryEngine } from '../memory/memory-engine';
import { hashTagOf, tenantTag } from './keys';
import type { ScriptClient } from './lua-script';
import { MAX_BATCH, RedisEngine } from './redis-engine';
import { deleteTenantKeys } from './redis-test-support';

// Decisions of one tenant asked for in the same turn share one script call (RedisEngineOptions.batch).
describe('RedisEngine batches concurrent decisions of a tenant', () => {
  let redis: Redis;
  const tenants: string[] = [];
  const tenant = () => {
    const id = `b-${randomUUID()}`;
    tenants.push(id);
    return id;
  };
  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL);
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
    const engine = new RedisEngine(client);
    const decisions = await Promise.all(Array.from({ length: 300 }, (_, i) => engine.consume({ tenantId: t, subject: 'hot', cost: 1, rules: i % 2 ? rules : [...rules].reverse() })));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(100);
    expect(calls.length).toBe(Math.ceil(300 / MAX_BATCH));
    for (const keys of calls) expect(new Set(keys.map(hashTagOf))).toEqual(new Set([tenantTag(t)]));
  });

  it('never mixes tenants in a call, and without batching makes one call per decision', async () => {
    const [a, b] = [tenant(), tenant()];
    const { client, calls } = counting();
    const engine = new RedisEngine(client);
    await Promise.all([a, b, a, b].map((tenantId) => engine.consume({ tenantId, subject: 's', cost: 1, rules })));
    expect(calls).toHaveLength(2);
    for (const keys of calls) expect(new Set(keys.map(hashTagOf)).size).toBe(1);
    const single = counting();
    const unbatched = new RedisEngine(single.client, { batch: false });
    await Promise.all([a, a, a].map((tenantId) => unbatched.consume({ tenantId, subject: 's', cost: 1, rules })));
    expect(single.calls).toHaveLength(3);
  });

  it('makes a batch of mixed operations exactly as the memory engine makes them one after another', async () => {
    const t = tenant();
    const clock = new ManualClock(Date.UTC(2026, 10, 30, 12, 0, 1));
    const { client, calls } = counting();
    const engine = new RedisEngine(client, { clock });
    const memory = new MemoryEngine({ clock });
    const mixed: LimitRule[] = [...rules, { name: 'gcra', algorithm: 'gcra', limit: 3, windowMs: 1_000, burst: 5 }];
    const steps = (e: RedisEngine | MemoryEngine): Promise<Decision | Lease>[] => [
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
    const engine = new RedisEngine(client, { clock });
    const memory = new MemoryEngine({ clock });
    const daily: LimitRule[] = [{ name: 'day', algorithm: 'fixed_window', limit: 3, windowMs: 0, calendar: { unit: 'day', timeZone: 'Europe/Berlin' } }];
    const other: LimitRule[] = [{ name: 'sw', algorithm: 'sliding_window', limit: 4, windowMs: 1_000 }];
    const order = [rules, rules, other, rules, daily, daily, other, other, rules];
    const steps = (e: RedisEngine | MemoryEngine) => order.map((r, i) => e.consume({ tenantId: t, subject: `s${i % 2}`, cost: 1, rules: r }));
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
    const engine = new RedisEngine(client, { clock });
    const memory = new MemoryEngine({ clock });
    // Tenant-wide (no subject) decisions of one tenant, as a plan's limits are, and one of a subject between.
    const asked: { subject?: string; cost: number }[] = [{ cost: 40 }, { cost: 40 }, { cost: 10 }, { subject: 'x', cost: 40 }, { cost: 40 }, { cost: 40 }];
    const steps = (e: RedisEngine | MemoryEngine) => asked.map((a) => e.consume({ tenantId: t, ...a, rules }));
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
    expect(sent[0]!.keys).toHaveLength(3 * rules.length);
  });

  it('fails every decision of a call whose script call fails, and a bad request alone', async () => {
    const t = tenant();
    const engine = new RedisEngine(counting(true).client);
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
    const engine = new RedisEngine(client, {
      guard: (call) => {
        guarded += 1;
        return refuse ? Promise.reject(new Error('circuit open')) : call();
      },
    });
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
