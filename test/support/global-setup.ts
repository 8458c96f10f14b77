// Makes sure the test database exists and is migrated, and that the suites have a Redis of their own. `npm test`
// (scripts/test.mjs) recreates the database empty and starts the run's redis-server before the suites run; a
// developer running `npx vitest` alone gets whatever the last run left in the database, and a redis-server started
// here for this run (unless TEST_REDIS_URL names one, which the suites may then flush).
import { migrate } from '../../scripts/db/migrate.mjs';
import { startRedisServer } from '../../scripts/lib/redis-server.mjs';
import { TEST_DATABASE_URL } from './env';

export default async function setup(): Promise<(() => Promise<void>) | void> {
  await migrate(TEST_DATABASE_URL, () => undefined);
  if (process.env.TEST_REDIS_URL) return;
  const redis = await startRedisServer();
  // Test files run in workers started after this, with this process's environment.
  process.env.TEST_REDIS_URL = `${redis.url}/0`;
  process.env.TEST_REDIS_DIR = redis.dir;
  return () => redis.stop();
}
