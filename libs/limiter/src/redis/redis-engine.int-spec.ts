import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { TEST_REDIS_URL } from '../../../../test/support/env';
import { limiterContract } from '../contract.suite';
import { deleteTenantKeys } from './redis-test-support';
import { RedisEngine } from './redis-engine';

let redis: Redis;
beforeAll(() => {
  redis = new Redis(TEST_REDIS_URL);
});
afterAll(() => redis.disconnect());

limiterContract({
  create: (clock) => new RedisEngine(redis, { clock }),
  cleanup: (tenantIds) => deleteTenantKeys(redis, tenantIds),
});
