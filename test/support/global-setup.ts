// Makes sure the test database exists and is migrated, and that the suites have a Redis of their own. `npm test`
// (scripts/test.mjs) recreates the database empty and starts the run's redis-server before the suites run; a
// developer running `npx vitest` alone gets whatever the last run left in the database, and a redis-server started
// here for this run (unless TEST_REDIS_URL names one, which the suites may then flush). A project whose files run
// side by side gets, for each lane past the first (env.ts), an empty database and a redis-server of that lane's own.
import type { TestProject } from 'vitest/node';
import { startRedisServer } from '../../scripts/lib/redis-server.mjs';
import { migrate } from '../../scripts/db/migrate.mjs';
import { laneVariable, TEST_DATABASE_URL, testDatabaseUrl } from './env';
import { recreateDatabase } from './stack';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await migrate(TEST_DATABASE_URL, () => undefined);
  const stops: (() => Promise<unknown>)[] = [];
  // Test files run in workers started after this, with this process's environment.
  if (!process.env.TEST_REDIS_URL) {
    const redis = await startRedisServer();
    process.env.TEST_REDIS_URL = `${redis.url}/0`;
    process.env.TEST_REDIS_DIR = redis.dir;
    stops.push(redis.stop);
  }
  const lanes = project.config.maxWorkers;
  for (let lane = 2; lane <= lanes; lane += 1) {
    const databaseUrl = testDatabaseUrl(`lane${lane}`);
    await recreateDatabase(databaseUrl);
    const redis = await startRedisServer(`tollgate-test-lane${lane}`);
    process.env[laneVariable('TEST_DATABASE_URL', lane)] = databaseUrl;
    process.env[laneVariable('TEST_REDIS_URL', lane)] = `${redis.url}/0`;
    process.env[laneVariable('TEST_REDIS_DIR', lane)] = redis.dir;
    stops.push(redis.stop);
  }
  return async () => {
    for (const stop of stops) await stop();
  };
}
