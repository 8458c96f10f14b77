import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../../../../test/support/env';
import { windowAt } from '../algorithms/fixed-window';
import { ManualClock } from '../clock';
import type { LimitRule } from '../contract';
import { prepareRules, preparingEachCall } from '../prepared-rules';
import { resolveRule } from '../rules';
import { ruleKey } from './keys';
import { encodeBatch, pushRuleKeys } from './protocol';
import { limitScript, RedisEngine } from './redis-engine';
import { useSuiteRedis } from './redis-test-support';

// A fixed window's count moved from `<rule key>:<window start ms>` (earlier versions) to the rule's own key, which a
// call can declare (docs/adr/0024-every-key-the-limit-script-touches-is-declared.md). The earlier counter is declared
// too, for the window of the engine's clock, and written once an earlier node made it: an upgrade gives no tenant a
// fresh window, and in a rolling upgrade a node of either version sees what the other charged.
describe('RedisEngine fixed windows across an upgrade', () => {
  let redis: Redis;
  const tenants = useSuiteRedis(TEST_REDIS_URL, (client) => (redis = client));

  const minute: LimitRule = { name: 'minute', algorithm: 'fixed_window', limit: 10, windowMs: 60_000 };
  const daily: LimitRule = { name: 'daily', algorithm: 'fixed_window', limit: 10, windowMs: 0, calendar: { unit: 'day', timeZone: 'America/New_York' } };
  const now = Date.UTC(2026, 10, 30, 12, 0, 30);
  const fresh = () => {
    const tenantId = `up-${randomUUID()}`;
    tenants.push(tenantId);
    return tenantId;
  };
  /** The counter an earlier version kept for `rule`'s window at `at`, and a node of that version charging it. */
  const counterOf = (tenantId: string, rule: LimitRule, at: number) => `${ruleKey(tenantId, rule, undefined)}:${windowAt(resolveRule(rule, 0), at).start}`;
  const oldNodeCharges = (counter: string, units: number) => redis.incrby(counter, units);

  it.each([minute, daily])('goes on from the count an earlier version left in its window ($name)', async (rule) => {
    const tenantId = fresh();
    await redis.set(counterOf(tenantId, rule, now), 8, 'PX', 120_000);
    const engine = preparingEachCall(new RedisEngine(redis, { clock: new ManualClock(now) }));
    const decisions = await Promise.all([1, 2, 3].map(() => engine.consume({ tenantId, cost: 1, rules: [rule] })));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, false]);
    expect(decisions[1]!.rules[0]!.remaining).toBe(0);
  });

  it('keeps both versions\' counts together while nodes of both decide (a rolling upgrade)', async () => {
    const tenantId = fresh();
    const engine = preparingEachCall(new RedisEngine(redis, { clock: new ManualClock(now) }));
    const counter = counterOf(tenantId, minute, now);
    for (let i = 0; i < 3; i += 1) await engine.consume({ tenantId, cost: 1, rules: [minute] });
    // With no earlier node in the window, this version keeps its own key only.
    expect(await redis.exists(counter)).toBe(0);
    // An earlier node charges: its INCRBY makes the counter, which holds only its own 4.
    await oldNodeCharges(counter, 4);
    // This version counts both (3 + 4) and from now on keeps the counter in step.
    const next = await engine.consume({ tenantId, cost: 2, rules: [minute] });
    expect({ allowed: next.allowed, remaining: next.rules[0]!.remaining }).toEqual({ allowed: true, remaining: 1 });
    expect(Number(await redis.get(counter))).toBe(9);
    // The earlier node now sees what both charged; what it adds is seen here.
    await oldNodeCharges(counter, 1);
    expect((await engine.consume({ tenantId, cost: 1, rules: [minute] })).allowed).toBe(false);
    expect(await redis.pttl(counter)).toBeGreaterThan(0);
    // A refund here comes off both.
    expect((await engine.refund({ tenantId, cost: 2, rules: [minute] })).rules[0]!.remaining).toBe(2);
    expect(Number(await redis.get(counter))).toBe(8);
    await oldNodeCharges(counter, 1);
    expect((await engine.consume({ tenantId, cost: 1, rules: [minute] })).rules[0]!.remaining).toBe(0);
  });

  it.each([minute, daily])('adds an earlier node\'s first charges in a window to its own, whichever charged first ($name)', async (rule) => {
    const tenantId = fresh();
    const engine = preparingEachCall(new RedisEngine(redis, { clock: new ManualClock(now) }));
    const counter = counterOf(tenantId, rule, now);
    await oldNodeCharges(counter, 2);
    expect((await engine.consume({ tenantId, cost: 3, rules: [rule] })).rules[0]!.remaining).toBe(5);
    expect(Number(await redis.get(counter))).toBe(5);
    // A batch of decisions in one call (one read and one write of each rule) counts the same way.
    await oldNodeCharges(counter, 1);
    const decisions = await Promise.all([1, 2, 3].map(() => engine.consume({ tenantId, cost: 2, rules: [rule] })));
    expect(decisions.map((d) => [d.allowed, d.rules[0]!.remaining])).toEqual([[true, 2], [true, 0], [false, 0]]);
    expect(Number(await redis.get(counter))).toBe(10);
  });

  it.each([minute, daily])('neither reads nor writes the earlier counter once earlier counters are off ($name)', async (rule) => {
    const tenantId = fresh();
    const counter = counterOf(tenantId, rule, now);
    await redis.set(counter, 8, 'PX', 120_000);
    const engine = preparingEachCall(new RedisEngine(redis, { clock: new ManualClock(now), earlierCounters: false }));
    const decisions = await Promise.all([1, 2, 3].map(() => engine.consume({ tenantId, cost: 1, rules: [rule] })));
    expect(decisions.map((d) => [d.allowed, d.rules[0]!.remaining])).toEqual([[true, 9], [true, 8], [true, 7]]);
    expect(await engine.consume({ tenantId, cost: 7, rules: [rule] })).toMatchObject({ allowed: true, rules: [{ remaining: 0 }] });
    expect(await redis.get(counter)).toBe('8');
    // The tenant's keys: the rule's own and the counter written above, nothing else.
    const own = ruleKey(tenantId, rule, undefined);
    expect((await redis.keys(`${own}*`)).sort()).toEqual([own, counter].sort());
  });

  it('leaves a counter of another window alone when the engine\'s clock named the wrong one, and still counts exactly', async () => {
    const tenantId = fresh();
    const prepared = prepareRules([minute]);
    const { rules } = prepared;
    const key = ruleKey(tenantId, minute, undefined);
    // The engine's estimate is a minute behind the clock the script decides on: it names the previous window's counter.
    const keys: string[] = [];
    pushRuleKeys(keys, key, rules[0]!, now - 60_000);
    await redis.set(keys[1]!, 9, 'PX', 120_000);
    const call = (amount: number) => encodeBatch(now, [{ operation: 'consume', amount, keys, rules, ruleArgs: prepared.args, prepared }]);
    const first = call(6);
    expect(String(await limitScript.run(redis, first.keys, first.args))).toMatch(new RegExp(`^${now} 1 4 `));
    const second = call(5);
    expect(String(await limitScript.run(redis, second.keys, second.args))).toMatch(new RegExp(`^${now} 0 4 `));
    expect(await redis.get(keys[1]!)).toBe('9');
  });
});
