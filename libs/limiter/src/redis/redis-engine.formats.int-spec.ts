import { preparingEachCall, ruleArgs, type RuleListLimiter } from '../prepared-rules';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../../../../test/support/env';
import { ManualClock } from '../clock';
import type { LimitRule } from '../contract';
import { MemoryEngine } from '../memory/memory-engine';
import { ruleKey } from './keys';
import { limitScript, RedisEngine } from './redis-engine';
import { resolveRule } from '../rules';
import { fixedWindowCount, useSuiteRedis } from './redis-test-support';

// How state is stored (lua/includes/common.lua, joinDigits): one decimal integer for typical rules, a
// `a:b[:c]` string when the numbers are too wide, and either read back exactly. Each case drives the Redis
// engine and the memory engine through the same instants and expects identical decisions.
describe('RedisEngine stored state', () => {
  let redis: Redis;
  const tenants = useSuiteRedis(TEST_REDIS_URL, (client) => (redis = client));

  /** A tenant of its own for a test (its keys are deleted after the suite). */
  const freshTenant = () => {
    const tenantId = `f-${randomUUID()}`;
    tenants.push(tenantId);
    return tenantId;
  };

  /** Both engines on one manual clock; `step` runs one consume on each and expects the same decision. */
  function engines(startMs: number) {
    const clock = new ManualClock(startMs);
    const tenantId = freshTenant();
    const redisEngine: RuleListLimiter = preparingEachCall(new RedisEngine(redis, { clock }));
    const memoryEngine: RuleListLimiter = preparingEachCall(new MemoryEngine({ clock }));
    const step = async (rules: LimitRule[], cost: number) => {
      const request = { tenantId, subject: 'user-1', cost, rules };
      const [fromRedis, fromMemory] = [await redisEngine.consume(request), await memoryEngine.consume(request)];
      expect(fromRedis).toEqual(fromMemory);
      return fromRedis;
    };
    return { clock, tenantId, step };
  }

  // One second into a minute: the cases below step across windows at known offsets.
  const START = Date.UTC(2026, 10, 30, 12, 0, 1);
  const stored = (tenantId: string, rule: LimitRule) => redis.get(ruleKey(tenantId, rule, 'user-1'));
  /** The count a fixed window's own key holds (of the window it holds). */
  const windowCount = async (tenantId: string, rule: LimitRule) => String(fixedWindowCount(await stored(tenantId, rule)));

  it('packs every two- and three-number state into one integer Redis stores as such', async () => {
    const { tenantId, step } = engines(START);
    const rules: LimitRule[] = [
      { name: 'tb', algorithm: 'token_bucket', limit: 1000, windowMs: 60_000, burst: 50 },
      { name: 'lb', algorithm: 'leaky_bucket', limit: 10, windowMs: 1_000 },
      { name: 'gc', algorithm: 'gcra', limit: 7, windowMs: 60_000 },
      { name: 'sw', algorithm: 'sliding_window', limit: 100, windowMs: 60_000 },
    ];
    await step(rules, 3);
    for (const rule of rules) {
      expect(await stored(tenantId, rule), rule.name).toMatch(/^\d+$/);
      expect(await redis.call('OBJECT', 'ENCODING', ruleKey(tenantId, rule, 'user-1')), rule.name).toBe('int');
    }
  });

  it('keeps numbers too wide for one integer as a:b, exactly', async () => {
    const { clock, tenantId, step } = engines(START);
    // A prime limit shares no divisor with the window: a full bucket is 999,999,937 × 4,000,000 parts, 16
    // digits, more than the packed form holds.
    const wide: LimitRule = { name: 'wide', algorithm: 'token_bucket', limit: 999_999_937, windowMs: 4_000_000 };
    for (const cost of [1, 999_999, 5_000_000]) {
      await step([wide], cost);
      clock.advance(1234);
    }
    expect(await stored(tenantId, wide)).toMatch(/^\d+:\d+$/);
    await step([wide], 1);
  });

  it('reads a sliding window whose limit was lowered below its counts', async () => {
    const { clock, step } = engines(START);
    const before: LimitRule = { name: 'sw', algorithm: 'sliding_window', limit: 1000, windowMs: 60_000 };
    await step([before], 500);
    const after = { ...before, limit: 10 };
    // 500 does not fit the new limit's two digits: the state is written as index:previous:current.
    expect((await step([after], 1)).allowed).toBe(false);
    clock.advance(60_000);
    await step([after], 1);
    clock.advance(30_000);
    const decision = await step([after], 1);
    expect(decision.allowed).toBe(false);
    expect(decision.retryAfterMs).toBeGreaterThan(0);
  });

  it('starts a bucket afresh when a limit change changes its unit, and keeps it when only the burst changes', async () => {
    const { step } = engines(START);
    const rule: LimitRule = { name: 'tb', algorithm: 'token_bucket', limit: 100, windowMs: 60_000 };
    await step([rule], 100);
    expect((await step([{ ...rule, burst: 150 }], 1)).allowed).toBe(false);
    const changed = await step([{ ...rule, limit: 120 }], 1);
    expect(changed.allowed).toBe(true);
    expect(changed.rules[0]?.remaining).toBe(119);
  });

  it('writes a full token bucket as it reads it for a consume, and takes the write back when another rule denies', async () => {
    const tenantId = freshTenant();
    const engine = preparingEachCall(new RedisEngine(redis));
    const bucket: LimitRule = { name: 'tb', algorithm: 'token_bucket', limit: 10, windowMs: 1_000 };
    const window: LimitRule = { name: 'fw', algorithm: 'fixed_window', limit: 1, windowMs: 60_000 };
    const request = { tenantId, subject: 'user-1', cost: 1, rules: [bucket, window] };
    expect((await engine.consume(request)).rules[0]).toMatchObject({ remaining: 9, resetMs: 100 });
    expect(await redis.pttl(ruleKey(tenantId, bucket, 'user-1'))).toBeGreaterThan(0);
    await redis.del(ruleKey(tenantId, bucket, 'user-1')); // as if 100 ms had passed: a full bucket again
    const denied = await engine.consume(request);
    expect(denied.allowed).toBe(false);
    expect(denied.rules[0]).toMatchObject({ remaining: 10, resetMs: 0 });
    expect(await redis.exists(ruleKey(tenantId, bucket, 'user-1'))).toBe(0);
  });

  it('charges a fixed window as it reads it for a consume, and takes the charge back when another rule denies', async () => {
    const tenantId = freshTenant();
    const engine = preparingEachCall(new RedisEngine(redis));
    const minute: LimitRule = { name: 'minute', algorithm: 'fixed_window', limit: 100, windowMs: 60_000 };
    const day: LimitRule = { name: 'day', algorithm: 'fixed_window', limit: 100, windowMs: 86_400_000 };
    const strict: LimitRule = { name: 'strict', algorithm: 'fixed_window', limit: 2, windowMs: 86_400_000 };
    const windowKey = (rule: LimitRule) => ruleKey(tenantId, rule, 'user-1');
    const counts = (...rules: LimitRule[]) => Promise.all(rules.map((rule) => windowCount(tenantId, rule)));
    const request = { tenantId, subject: 'user-1', cost: 2, rules: [minute, day] };
    // The minute's window is new on the first consume (it gets its TTL), the day's one exists on the second.
    expect((await engine.consume({ ...request, rules: [day] })).allowed).toBe(true);
    const first = await engine.consume(request);
    expect(first.rules.map((r) => r.remaining)).toEqual([98, 96]);
    const [minuteKey, dayKey] = [windowKey(minute), windowKey(day)];
    expect(await counts(minute, day)).toEqual(['2', '4']);
    expect(await redis.pttl(minuteKey!)).toBeGreaterThan(0);
    const dayTtl = await redis.pttl(dayKey!);
    expect(dayTtl).toBeGreaterThan(60_000);

    // Denied by the strict window (2 a day, 2 taken now: cost 2 more is too much): neither window keeps the charge,
    // the minute's and day's keys are as they were, TTLs included; a window the denial would have created is gone.
    await engine.consume({ tenantId, subject: 'user-1', cost: 2, rules: [strict] });
    const denied = await engine.consume({ ...request, rules: [minute, day, strict] });
    expect(denied.allowed).toBe(false);
    expect(denied.rules.map((r) => r.remaining)).toEqual([98, 96, 0]);
    expect(await counts(minute, day, strict)).toEqual(['2', '4', '2']);
    expect(await redis.pttl(dayKey!)).toBeLessThanOrEqual(dayTtl);
    expect(await redis.pttl(dayKey!)).toBeGreaterThan(60_000);
    const hourly: LimitRule = { name: 'hourly', algorithm: 'fixed_window', limit: 100, windowMs: 3_600_000 };
    expect((await engine.consume({ ...request, rules: [hourly, strict] })).allowed).toBe(false);
    expect(await redis.exists(windowKey(hourly))).toBe(0);
  });

  it('takes back what reading the rules charged when the script answers an error', async () => {
    const tenantId = freshTenant();
    const minute: LimitRule = { name: 'minute', algorithm: 'fixed_window', limit: 100, windowMs: 60_000 };
    const bucket: LimitRule = { name: 'tb', algorithm: 'token_bucket', limit: 10, windowMs: 1_000 };
    await preparingEachCall(new RedisEngine(redis)).consume({ tenantId, subject: 'user-1', cost: 3, rules: [minute] });
    const keys = [ruleKey(tenantId, minute, 'user-1'), ruleKey(tenantId, bucket, 'user-1'), `${ruleKey(tenantId, bucket, 'user-1')}:bad`];
    // A rule of an algorithm the script does not know, after a fixed window and a token bucket a consume charges.
    const args = ['', '0', '', '', '', 'consume', '1', '', '3', ...ruleArgs(resolveRule(minute, 0)), ...ruleArgs(resolveRule(bucket, 1)), 'xx', '1', '1', '1', ''];
    await expect(limitScript.run(redis, keys, args)).rejects.toThrow(/unknown limiter algorithm xx/);
    expect(await windowCount(tenantId, minute)).toBe('3');
    expect(await redis.exists(keys[1]!)).toBe(0);
  });

  it('works on a clock before its epoch (2025-01-01): the time in the packed state is negative', async () => {
    const { clock, step } = engines(1_000);
    const rules: LimitRule[] = [
      { name: 'tb', algorithm: 'token_bucket', limit: 10, windowMs: 1_000 },
      { name: 'gc', algorithm: 'gcra', limit: 3, windowMs: 1_000 },
      { name: 'ls', algorithm: 'leaky_bucket_shaper', limit: 5, windowMs: 1_000 },
    ];
    for (let i = 0; i < 12; i += 1) {
      await step(rules, 1);
      clock.advance(97);
    }
  });
});
