import { preparingEachCall } from '../prepared-rules';
import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../../../../test/support/redis-cluster';
import { limiterContract } from '../contract.suite';
import { ALGORITHMS } from '../contract';
import { assertRedisAgreesWithMemory } from '../contract-suite/agreement';
import { hashTagOf, tenantKeyPrefix, tenantTag } from './keys';
import { tallyText } from './protocol';
import type { ScriptClient } from '@tollgate/lua-script';
import { RedisEngine } from './redis-engine';
import { soakAndCheckTtls, usageSums } from './redis-test-support';

let cluster: TestCluster;
let client: Cluster;
beforeAll(async () => {
  cluster = await startCluster();
  client = cluster.client();
}, 60_000);
afterAll(() => cluster?.stop());

// The whole contract on a real 3-primary Redis Cluster: no CROSSSLOT, one hash tag per decision.
limiterContract({ create: (clock) => new RedisEngine(client, { clock }) });

describe('RedisEngine on a Redis Cluster', () => {
  it('admits exactly 100 of 1000 concurrent checks over every algorithm at once, on Redis TIME', async () => {
    const rules = ALGORITHMS.map((algorithm) => ({ name: algorithm, algorithm, limit: 100, windowMs: 86_400_000 }));
    const engine = preparingEachCall(new RedisEngine(client));
    const ds = await Promise.all(Array.from({ length: 1000 }, () => engine.consume({ tenantId: 'cluster-tenant', cost: 1, rules })));
    expect(ds.filter((d) => d.allowed)).toHaveLength(100);
  });

  it('keeps answering, exactly, when every node flushes its scripts under load', async () => {
    const rules = [{ name: 'daily', algorithm: 'token_bucket' as const, limit: 200, windowMs: 86_400_000 }];
    const engine = preparingEachCall(new RedisEngine(client));
    const pending = Array.from({ length: 600 }, (_, i) =>
      new Promise((r) => setTimeout(r, i % 50)).then(() => engine.consume({ tenantId: 'cluster-flush', cost: 1, rules })),
    );
    await Promise.all(client.nodes('master').map((node) => node.script('FLUSH')));
    const ds = await Promise.all(pending);
    expect(ds.filter((d) => d.allowed)).toHaveLength(200);
  });

  it('counts each tenant\'s decisions into its own usage hash, in its slot, exactly', async () => {
    const rules = [{ name: 'minute', algorithm: 'fixed_window' as const, limit: 30, windowMs: 60_000 }];
    const engine = preparingEachCall(new RedisEngine(client));
    const tenants = Array.from({ length: 6 }, (_, i) => `cluster-usage-${i}-${Date.now()}`);
    const decisions = await Promise.all(
      tenants.flatMap((tenantId) => {
        const tally = { key: `${tenantKeyPrefix(tenantId)}u:`, text: tallyText('-|', ['minute']) };
        return Array.from({ length: 40 }, () => engine.consume({ tenantId, cost: 1, rules, tally }).then((d) => ({ tenantId, allowed: d.allowed, nowMs: d.nowMs })));
      }),
    );
    for (const tenantId of tenants) {
      const mine = decisions.filter((d) => d.tenantId === tenantId);
      // The minutes these decisions fell in (a run across a minute's edge counts in both).
      const minutes = [...new Set(mine.map((d) => Math.floor(d.nowMs / 60_000) * 60))];
      let allowed = 0;
      let denied = 0;
      for (const minute of minutes) {
        const hash = await client.hgetall(`${tenantKeyPrefix(tenantId)}u:${minute}`);
        allowed += Number(hash['n|-|allowed|'] ?? 0);
        denied += Number(hash['n|-|denied|minute'] ?? 0);
      }
      expect({ allowed, denied }).toEqual({ allowed: mine.filter((d) => d.allowed).length, denied: mine.filter((d) => !d.allowed).length });
    }
  });

  it('sends every key of a script call in one hash tag: the tenant\'s', async () => {
    const calls: string[][] = [];
    const recording: ScriptClient = {
      evalsha: (sha, numKeys, ...rest) => {
        calls.push(rest.slice(0, numKeys).map(String));
        return client.evalsha(sha, numKeys, ...rest);
      },
      // After NOSCRIPT (a node whose scripts an earlier test flushed) the same call is sent again by EVAL.
      eval: (script, numKeys, ...rest) => client.eval(script, numKeys, ...rest),
    };
    const engine = preparingEachCall(new RedisEngine(recording));
    const rules = ALGORITHMS.filter((a) => a !== 'leaky_bucket_shaper').map((algorithm) => ({ name: algorithm, algorithm, limit: 50, windowMs: 60_000 }));
    const tenants = Array.from({ length: 12 }, (_, i) => `cluster-tag-${i}`);
    // Concurrent decisions of many tenants (batched per tenant) and subjects with `{`, `}` and `:` in them.
    await Promise.all(tenants.flatMap((tenantId) => ['a', '{b}', 'c:{d}'].map((subject) => engine.consume({ tenantId, subject, cost: 1, rules }))));
    expect(calls).toHaveLength(tenants.length);
    for (const keys of calls) {
      const tags = new Set(keys.map(hashTagOf));
      expect(tags.size).toBe(1);
      expect(tenants.map(tenantTag)).toContain([...tags][0]);
    }
  });

  it('undoes late replies in the tenant\'s slot: charges given back, counts taken back, also by a call of no decisions', async () => {
    // Replies held back 200 ms after Redis ran the call: each misses the 50 ms deadline.
    let slow = false;
    const late: ScriptClient = {
      evalsha: (sha, numKeys, ...rest) => client.evalsha(sha, numKeys, ...rest).then(async (r) => (slow ? new Promise((done) => setTimeout(() => done(r), 200)) : r)),
      eval: (script, numKeys, ...rest) => client.eval(script, numKeys, ...rest),
    };
    const outcomes: string[] = [];
    const engine = preparingEachCall(new RedisEngine(late, { deadlineMs: 50, onLateReply: (o) => outcomes.push(o) }));
    const rules = [{ name: 'day', algorithm: 'fixed_window' as const, limit: 2, windowMs: 86_400_000 }];
    const tenants = Array.from({ length: 4 }, (_, i) => `cluster-late-${i}-${Date.now()}`);
    const usage = (tenantId: string) => usageSums(client.nodes('master'), tenantId);
    const consume = (tenantId: string) => engine.consume({ tenantId, cost: 1, rules, tally: { key: `${tenantKeyPrefix(tenantId)}u:`, text: tallyText('-|', ['day']) } });
    // Each tenant: one decision in time (1 left), then a late batch of three (one admitted and given back, two denied),
    // then a late batch of two denials alone (what it counted is all there is to undo).
    for (const tenantId of tenants) await consume(tenantId);
    await engine.peek({ tenantId: tenants[0]!, cost: 1, rules });
    slow = true;
    const batches = await Promise.allSettled(tenants.flatMap((tenantId) => [consume(tenantId), consume(tenantId), consume(tenantId)]));
    expect(batches.every((r) => r.status === 'rejected')).toBe(true);
    slow = false;
    await new Promise((r) => setTimeout(r, 400));
    for (const tenantId of tenants) await consume(tenantId); // the last unit, in time
    slow = true;
    const denials = await Promise.allSettled(tenants.flatMap((tenantId) => [consume(tenantId), consume(tenantId)]));
    expect(denials.every((r) => r.status === 'rejected')).toBe(true);
    await new Promise((r) => setTimeout(r, 400));
    slow = false;
    for (let i = 0; i < 50 && outcomes.length < 2 * tenants.length; i += 1) await new Promise((r) => setTimeout(r, 50));
    expect(outcomes).toEqual(Array.from({ length: 2 * tenants.length }, () => 'compensated'));
    for (const tenantId of tenants) {
      expect(await usage(tenantId)).toEqual({ 'n|-|allowed|': 2, 'c|-|allowed|': 2 });
      expect((await engine.peek({ tenantId, cost: 1, rules })).allowed).toBe(false);
    }
  });

  it('leaves every key with a TTL that ends exactly when its state empties', async () => {
    await soakAndCheckTtls(client, preparingEachCall(new RedisEngine(client)), () => undefined);
  });

  it('agrees with the memory engine step by step', async () => {
    expect((await assertRedisAgreesWithMemory(client, 300)).length).toBeGreaterThanOrEqual(300);
  });
});
