import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe } from 'vitest';
import { TEST_REDIS_URL } from '../../../../test/support/env';
import { limiterContract } from '../contract.suite';
import { deleteTenantKeys } from './redis-test-support';
import { RedisEngine } from './redis-engine';

let redis: Redis;
beforeAll(() => {
  redis = new Redis(TEST_REDIS_URL);
});
afterAll(() => redis.disconnect());

// Both ways a fixed window can be kept: with the counter earlier versions kept (the default, for rolling upgrades)
// and without it (docs/adr/0024-every-key-the-limit-script-touches-is-declared.md).
describe.each([true, false])('earlier counters %s', (earlierCounters) => {
  limiterContract({
    create: (clock) => new RedisEngine(redis, { clock, earlierCounters }),
    cleanup: (tenantIds) => deleteTenantKeys(redis, tenantIds),
  });
});
