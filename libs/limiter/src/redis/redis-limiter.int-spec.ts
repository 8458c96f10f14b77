import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../../../../test/support/env';
import { CostExceedsCapacityError } from '../errors';
import { limiterKeys } from './keys';
import { RedisLimiter } from './redis-limiter';

const minute = { name: 'minute', windowS: 60, limit: 10, algorithm: 'fixed_window' } as const;
const daily = { name: 'daily', windowS: 86_400, limit: 1000, algorithm: 'fixed_window' } as const;

describe('RedisLimiter (fixed window, real Redis)', () => {
  let redis: Redis;
  let limiter: RedisLimiter;
  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL);
    limiter = new RedisLimiter(redis);
  });
  afterAll(() => redis.disconnect());
  const tenantId = () => randomUUID();

  it('admits the limit, then denies with a retry-after that ends at the window boundary', async () => {
    const t = tenantId();
    const decisions = [];
    for (let i = 0; i < 11; i += 1) decisions.push(await limiter.decide({ tenantId: t, subject: 'u1', cost: 1, limits: [minute, daily] }));
    expect(decisions.slice(0, 10).every((d) => d.allowed)).toBe(true);
    expect(decisions[9]!.limits[0]!.remaining).toBe(0);
    const denied = decisions[10]!;
    expect(denied.allowed).toBe(false);
    expect(denied.retryAfterMs).toBeGreaterThan(0);
    expect(denied.retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(denied.retryAfterMs).toBe(60_000 - (denied.nowMs % 60_000));
    expect(denied.limits[1]!.remaining).toBe(990);
  });

  it('charges nothing when one limit denies (all or nothing): 50 checks at 10/s leave the daily counter at 10', async () => {
    const t = tenantId();
    const perSecond = { name: 'second', windowS: 1, limit: 10, algorithm: 'fixed_window' } as const;
    // Start right after a second boundary so all 50 land in one window.
    const { nowMs } = await limiter.decide({ tenantId: randomUUID(), cost: 1, limits: [daily] });
    await new Promise((r) => setTimeout(r, 1000 - (nowMs % 1000) + 5));
    const results = await Promise.all(Array.from({ length: 50 }, () => limiter.decide({ tenantId: t, cost: 1, limits: [perSecond, daily] })));
    expect(results.filter((d) => d.allowed)).toHaveLength(10);
    expect(await redis.get(limiterKeys.fixedWindow(t, 'daily', 86_400, undefined))).toBe('10');
  });

  it('over-ask charges nothing: limit 2000, 1000 passes, 1500 is denied with 1000 left, 500 passes', async () => {
    const t = tenantId();
    const big = { name: 'daily', windowS: 86_400, limit: 2000, algorithm: 'fixed_window' } as const;
    expect((await limiter.decide({ tenantId: t, cost: 1000, limits: [big] })).allowed).toBe(true);
    const overAsk = await limiter.decide({ tenantId: t, cost: 1500, limits: [big] });
    expect(overAsk.allowed).toBe(false);
    expect(overAsk.limits[0]!.remaining).toBe(1000);
    expect((await limiter.decide({ tenantId: t, cost: 500, limits: [big] })).allowed).toBe(true);
  });

  it('admits exactly the limit under 1000 concurrent checks (no read-then-write race)', async () => {
    const t = tenantId();
    const hundred = { name: 'minute', windowS: 3600, limit: 100, algorithm: 'fixed_window' } as const;
    const clients = Array.from({ length: 4 }, () => new Redis(TEST_REDIS_URL));
    try {
      const results = await Promise.all(
        Array.from({ length: 1000 }, (_, i) => new RedisLimiter(clients[i % 4]!).decide({ tenantId: t, cost: 1, limits: [hundred] })),
      );
      expect(results.filter((d) => d.allowed)).toHaveLength(100);
    } finally {
      clients.forEach((c) => c.disconnect());
    }
  });

  it('refuses a cost above a limit\'s capacity before touching Redis', async () => {
    const t = tenantId();
    await expect(limiter.decide({ tenantId: t, cost: 11, limits: [minute, daily] })).rejects.toBeInstanceOf(CostExceedsCapacityError);
    expect(await redis.exists(limiterKeys.fixedWindow(t, 'minute', 60, undefined))).toBe(0);
  });

  it('gives every counter a TTL that ends with its window, and keeps subjects out of key names', async () => {
    const t = tenantId();
    const subject = 'user:{42}:with braces';
    const d = await limiter.decide({ tenantId: t, subject, cost: 1, limits: [minute, daily] });
    const keys = await redis.keys(`tg:{${t}}:*`);
    expect(keys).toHaveLength(2);
    for (const key of keys) {
      expect(key).not.toContain('user');
      const ttl = await redis.pttl(key);
      const window = key.includes(':minute:') ? d.limits[0]! : d.limits[1]!;
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(window.resetMs);
    }
  });

  it('keeps answering after SCRIPT FLUSH (NOSCRIPT falls back to EVAL)', async () => {
    const t = tenantId();
    await limiter.decide({ tenantId: t, cost: 1, limits: [minute] });
    await redis.script('FLUSH');
    const d = await limiter.decide({ tenantId: t, cost: 1, limits: [minute] });
    expect(d.allowed).toBe(true);
    expect(d.limits[0]!.remaining).toBe(8);
  });
});
