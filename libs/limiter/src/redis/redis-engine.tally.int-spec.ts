import { preparingEachCall } from '../prepared-rules';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../../../../test/support/env';
import type { ScriptClient } from '@tollgate/lua-script';
import { ManualClock } from '../clock';
import type { LimitRule, Tally } from '../contract';
import { tenantKeyPrefix } from './keys';
import { routedTally, tallyText } from './protocol';
import { RedisEngine } from './redis-engine';
import { tenantIds, useSuiteRedis } from './redis-test-support';

// The script counts each decision into the tenant's usage hash of the minute, in the call that decides it (see
// lua/includes/tally.lua). These tests read the hash back after decisions whose outcome they know.
describe('RedisEngine counts decisions with their tally', () => {
  let redis: Redis;
  const tenants = useSuiteRedis(TEST_REDIS_URL, (client) => (redis = client));
  const now = Date.UTC(2026, 11, 2, 10, 30, 15);
  const minute = Math.floor(now / 60_000) * 60;
  const clock = new ManualClock(now);

  const tenant = tenantIds(tenants, 'tally');
  const usageKey = (t: string) => `${tenantKeyPrefix(t)}u:`;
  const usage = (t: string) => redis.hgetall(`${usageKey(t)}${minute}`);


  const minuteLimit: LimitRule = { name: 'minute', algorithm: 'fixed_window', limit: 6, windowMs: 60_000 };
  const burst: LimitRule = { name: 'burst', algorithm: 'token_bucket', limit: 1, windowMs: 60_000 };

  /** A client that counts script calls. */
  function counting() {
    let calls = 0;
    const client: ScriptClient = {
      evalsha: (sha, numKeys, ...rest) => {
        calls += 1;
        return redis.evalsha(sha, numKeys, ...rest);
      },
      eval: (script, numKeys, ...rest) => redis.eval(script, numKeys, ...rest),
    };
    return { client, calls: () => calls };
  }

  it('counts admissions with their cost and denials by the limit that refused, concurrent decisions in one call', async () => {
    const t = tenant();
    const tally: Tally = { key: usageKey(t), text: tallyText('p1|', ['minute']) };
    await preparingEachCall(new RedisEngine(redis, { clock })).peek({ tenantId: t, cost: 1, rules: [minuteLimit] }); // the script cached
    const { client, calls } = counting();
    const engine = preparingEachCall(new RedisEngine(client, { clock }));
    const decisions = await Promise.all(Array.from({ length: 5 }, () => engine.consume({ tenantId: t, cost: 2, rules: [minuteLimit], tally })));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
    expect(calls()).toBe(1);
    expect(await usage(t)).toEqual({ 'n|p1|allowed|': '3', 'c|p1|allowed|': '6', 'n|p1|denied|minute': '2' });
    const ttl = await redis.ttl(`${usageKey(t)}${minute}`);
    expect(ttl).toBeGreaterThan(172_800 - 60);
    expect(ttl).toBeLessThanOrEqual(172_800);
  });

  it('counts the same decisions one call at a time as in one call', async () => {
    const t = tenant();
    const tally: Tally = { key: usageKey(t), text: tallyText('p1|', ['minute']) };
    const engine = preparingEachCall(new RedisEngine(redis, { clock, batch: false }));
    for (let i = 0; i < 5; i += 1) await engine.consume({ tenantId: t, cost: 2, rules: [minuteLimit], tally });
    expect(await usage(t)).toEqual({ 'n|p1|allowed|': '3', 'c|p1|allowed|': '6', 'n|p1|denied|minute': '2' });
  });

  it('counts a shadow policy\'s would-deny in the call that decides it, as shadow_denied, charged to the tenant\'s own limits', async () => {
    const t = tenant();
    const engine = preparingEachCall(new RedisEngine(redis, { clock, batch: false }));
    const daily: LimitRule = { name: 'daily', algorithm: 'fixed_window', limit: 2, windowMs: 86_400_000 };
    const rules = [daily, burst];
    const tally: Tally = { key: usageKey(t), text: tallyText('p2|', ['daily', 'burst']) };
    expect((await engine.consume({ tenantId: t, cost: 1, rules, shadowFrom: 1, tally })).allowed).toBe(true);
    // The burst (in shadow) refuses: admitted on the daily limit alone, counted as the burst's would-deny.
    const wouldDeny = await engine.consume({ tenantId: t, cost: 1, rules, shadowFrom: 1, tally });
    expect(wouldDeny).toMatchObject({ allowed: true, retryAfterMs: 0, rules: [{ name: 'daily', remaining: 0, retryAfterMs: 0 }, { name: 'burst', remaining: 0 }] });
    expect(wouldDeny.rules[1]!.retryAfterMs).toBeGreaterThan(0);
    expect(await usage(t)).toEqual({ 'n|p2|allowed|': '1', 'c|p2|allowed|': '1', 'n|p2|shadow_denied|burst': '1', 'c|p2|shadow_denied|burst': '1' });
    // A denial by the tenant's own limit (before the shadow rules; both refuse now) is a denial, counted.
    expect((await engine.consume({ tenantId: t, cost: 1, rules, shadowFrom: 1, tally })).allowed).toBe(false);
    expect(await usage(t)).toMatchObject({ 'n|p2|denied|daily': '1' });
  });

  it('decides a shadow policy with the enforced limits in one script call, batched decisions included', async () => {
    const t = tenant();
    const tally: Tally = { key: usageKey(t), text: tallyText('p3|', ['minute', 'burst']) };
    await preparingEachCall(new RedisEngine(redis, { clock })).peek({ tenantId: t, cost: 1, rules: [minuteLimit, burst] }); // the script cached
    const { client, calls } = counting();
    const engine = preparingEachCall(new RedisEngine(client, { clock }));
    const decisions = await Promise.all(Array.from({ length: 8 }, () => engine.consume({ tenantId: t, cost: 1, rules: [minuteLimit, burst], shadowFrom: 1, tally })));
    expect(calls()).toBe(1);
    // The burst (1) admits the first; the shadow never denies; the minute (6) does, from the seventh on.
    expect(decisions.map((d) => [d.allowed, d.rules[1]!.retryAfterMs > 0])).toEqual([
      [true, false], [true, true], [true, true], [true, true], [true, true], [true, true], [false, true], [false, true],
    ]);
    expect(await usage(t)).toEqual({
      'n|p3|allowed|': '1', 'c|p3|allowed|': '1',
      'n|p3|shadow_denied|burst': '5', 'c|p3|shadow_denied|burst': '5',
      'n|p3|denied|minute': '2',
    });
  });

  it('counts a lease as one decision of the units it took, a refund off the cost, a peek not at all', async () => {
    const t = tenant();
    const tally: Tally = { key: usageKey(t), text: tallyText('-|', ['minute']) };
    const engine = preparingEachCall(new RedisEngine(redis, { clock, batch: false }));
    expect((await engine.lease({ tenantId: t, max: 4, rules: [minuteLimit], tally })).granted).toBe(4);
    expect((await engine.lease({ tenantId: t, max: 4, rules: [minuteLimit], tally })).granted).toBe(2);
    await engine.peek({ tenantId: t, cost: 1, rules: [minuteLimit], tally });
    expect((await engine.lease({ tenantId: t, max: 4, rules: [minuteLimit], tally })).granted).toBe(0);
    await engine.refund({ tenantId: t, cost: 1, rules: [minuteLimit], tally });
    expect(await usage(t)).toEqual({ 'n|-|allowed|': '2', 'c|-|allowed|': '5', 'n|-|denied|minute': '1' });
  });

  it('takes off the cost only what a refund gave back, and never takes a minute below 0', async () => {
    const t = tenant();
    const tally: Tally = { key: usageKey(t), text: tallyText('-|', ['minute', 'daily']) };
    const daily: LimitRule = { name: 'daily', algorithm: 'token_bucket', limit: 100, windowMs: 86_400_000 };
    const engine = preparingEachCall(new RedisEngine(redis, { clock, batch: false }));
    // Nothing charged yet: a refund of 5 gives nothing back and changes no cost.
    await engine.refund({ tenantId: t, cost: 5, rules: [minuteLimit, daily], tally });
    expect(await usage(t)).toEqual({});
    // 3 charged: a refund of 5 gives back 3 (the most any limit took back), and the minute's cost is 0, not -2.
    await engine.consume({ tenantId: t, cost: 3, rules: [minuteLimit, daily], tally });
    await engine.refund({ tenantId: t, cost: 5, rules: [minuteLimit, daily], tally });
    expect(await usage(t)).toEqual({ 'n|-|allowed|': '1', 'c|-|allowed|': '0' });
    // Given back to one limit and not the other (the minute window already empty): what the other took back counts,
    // and a minute that holds less than that goes to 0.
    await engine.consume({ tenantId: t, cost: 2, rules: [daily], tally });
    await engine.refund({ tenantId: t, cost: 5, rules: [minuteLimit, daily], tally });
    expect(await usage(t)).toEqual({ 'n|-|allowed|': '2', 'c|-|allowed|': '0' });
    // Without rules a refund gives back what it asks, as a consume without rules charges it; still not below 0.
    await engine.consume({ tenantId: t, cost: 4, rules: [], tally });
    await engine.refund({ tenantId: t, cost: 3, rules: [], tally });
    expect(await usage(t)).toEqual({ 'n|-|allowed|': '3', 'c|-|allowed|': '1' });
  });

  it('counts each decision under its route too, at most `cap` routes a minute under their own name, the rest as other', async () => {
    const t = tenant();
    const tally: Tally = { key: usageKey(t), text: tallyText('-|', ['minute']) };
    const engine = preparingEachCall(new RedisEngine(redis, { clock }));
    const on = (route: string) => engine.consume({ tenantId: t, cost: 1, rules: [minuteLimit], tally: routedTally(tally, route, 2) });
    // One call of several routes (batched), then one at a time: 6 admitted, the seventh denied by the minute.
    const first = await Promise.all(['GET /a', 'GET /b', 'GET /c', 'GET /a'].map(on));
    const rest = [await on('GET /d'), await on('GET /b'), await on('GET /a')];
    expect([...first, ...rest].map((d) => d.allowed)).toEqual([true, true, true, true, true, true, false]);
    expect(await usage(t)).toEqual({
      'n|-|allowed|': '6', 'c|-|allowed|': '6', 'n|-|denied|minute': '1',
      'r|GET /a|allowed|': '2', 'r|GET /a|denied|minute': '1', 'r|GET /b|allowed|': '2', 'r|other|allowed|': '2',
      'rr|GET /a': '1', 'rr|GET /b': '1', 'r#': '2',
    });
  });

  it('counts nothing without a tally, and refuses a tally outside the tenant\'s hash tag', async () => {
    const t = tenant();
    const engine = preparingEachCall(new RedisEngine(redis, { clock, batch: false }));
    await engine.consume({ tenantId: t, cost: 1, rules: [minuteLimit] });
    expect(await usage(t)).toEqual({});
    const other = tenant();
    await expect(engine.consume({ tenantId: t, cost: 1, rules: [minuteLimit], tally: { key: usageKey(other), text: tallyText('-|', ['minute']) } })).rejects.toThrow(/hash tag/);
  });
});
