import type { RedisClient } from './redis-client';

/** Waits for the first connection for at most `ms`, but never fails: a process starts even while Redis is down. */
export function waitUntilReady(redis: RedisClient, ms: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    redis.once('ready', done);
  });
}
