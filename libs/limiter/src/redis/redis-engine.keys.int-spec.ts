import { preparingEachCall } from '../prepared-rules';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../../../../test/support/env';
import type { LimitRule } from '../contract';
import { RedisEngine } from './redis-engine';
import { soakAndCheckTtls, tenantKeys, useSuiteRedis } from './redis-test-support';

describe('RedisEngine keys', () => {
  let redis: Redis;
  const tenants = useSuiteRedis(TEST_REDIS_URL, (client) => (redis = client));

  it('after a soak of every algorithm, every key has a TTL, and each ends exactly when its state empties', async () => {
    await soakAndCheckTtls(redis, preparingEachCall(new RedisEngine(redis)), (ids) => tenants.push(...ids));
  });

  it('keeps each key small: MEMORY USAGE per key of every algorithm', async () => {
    const tenantId = `m-${randomUUID()}`;
    tenants.push(tenantId);
    const engine = preparingEachCall(new RedisEngine(redis));
    const rules: LimitRule[] = [
      { name: 'minute', algorithm: 'fixed_window', limit: 1000, windowMs: 60_000 },
      { name: 'minute', algorithm: 'sliding_window', limit: 1000, windowMs: 60_000 },
      { name: 'minute', algorithm: 'token_bucket', limit: 1000, windowMs: 60_000, burst: 100 },
      { name: 'minute', algorithm: 'leaky_bucket', limit: 1000, windowMs: 60_000 },
      { name: 'minute', algorithm: 'leaky_bucket_shaper', limit: 1000, windowMs: 60_000 },
      { name: 'minute', algorithm: 'gcra', limit: 7, windowMs: 60_000 },
      { name: 'minute', algorithm: 'sliding_log', limit: 1000, windowMs: 60_000 },
    ];
    for (const rule of rules) await engine.consume({ tenantId, subject: 'user-42', cost: 3, rules: [rule] });
    const usage: Record<string, number> = {};
    for (const key of await tenantKeys(redis, [tenantId])) {
      usage[key] = Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
    }
    console.info('MEMORY USAGE per key (bytes):', usage);
    // One key per rule: a fixed window's counter of earlier versions exists only once a node of an earlier version
    // made it (lua/includes/fixed_window.lua).
    expect(Object.keys(usage)).toHaveLength(rules.length);
    // Redis 7 + jemalloc: a key name of up to 44 characters with an integer value is 88 bytes (README). Every
    // state of two or three numbers packs into one integer.
    for (const [key, bytes] of Object.entries(usage)) {
      if (key.includes(':sl:')) continue;
      expect(bytes, key).toBeLessThanOrEqual(88);
      expect(await redis.call('OBJECT', 'ENCODING', key), key).toBe('int');
    }
  });
});
