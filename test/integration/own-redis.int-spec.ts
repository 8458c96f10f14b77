import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { TEST_REDIS_DIR, TEST_REDIS_URL } from '../support/env';

// Users run Tollgate beside the test suite, often on the default Redis: the suites must never read, write or flush
// a Redis they did not start. `npm test` and the suites' global setup start a redis-server of the run's own in a new
// temporary folder and say which (TEST_REDIS_DIR); this proves the suites talk to that one.
describe('the test run\'s Redis', () => {
  it('is a redis-server this run started, not one that was already there', async () => {
    const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await redis.connect();
      const [, dir] = (await redis.config('GET', 'dir')) as [string, string];
      expect(TEST_REDIS_DIR, 'TEST_REDIS_URL names a Redis this run did not start').toBeTruthy();
      expect(dir).toBe(TEST_REDIS_DIR);
      expect(new URL(TEST_REDIS_URL).port).not.toBe('6379');
    } finally {
      redis.disconnect();
    }
  });
});
