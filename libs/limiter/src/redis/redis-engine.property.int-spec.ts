import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../../../../test/support/env';
import { assertRedisAgreesWithMemory } from '../contract-suite/agreement';
import { deleteTenantKeys } from './redis-test-support';

describe('Redis scripts and the memory engine agree', () => {
  let redis: Redis;
  let tenants: string[] = [];
  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL);
  });
  afterAll(async () => {
    await deleteTenantKeys(redis, tenants);
    redis.disconnect();
  });

  it('gives identical decisions step by step for random rules, costs, clock steps and operations', async () => {
    tenants = await assertRedisAgreesWithMemory(redis, 1000);
    expect(tenants.length).toBeGreaterThanOrEqual(1000);
  });
});
