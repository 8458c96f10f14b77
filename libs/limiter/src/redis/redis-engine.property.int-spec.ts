import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../../../../test/support/env';
import { assertRedisAgreesWithMemory } from '../contract-suite/agreement';
import { useSuiteRedis } from './redis-test-support';

describe('Redis scripts and the memory engine agree', () => {
  let redis: Redis;
  const tenants = useSuiteRedis(TEST_REDIS_URL, (client) => (redis = client));

  // Earlier counters on (the default, for rolling upgrades) and off (docs/adr/0024-every-key-the-limit-script-touches-is-declared.md).
  it.each([true, false])('gives identical decisions step by step for random rules, costs, clock steps and operations (earlier counters %s)', async (earlierCounters) => {
    const used = await assertRedisAgreesWithMemory(redis, 1000, { earlierCounters });
    tenants.push(...used);
    expect(used.length).toBeGreaterThanOrEqual(1000);
  });
});
