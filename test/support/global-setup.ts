// Makes sure the test database exists and is migrated. `npm test` (scripts/test.mjs) recreates it empty
// before the suites run; a developer running `npx vitest` alone gets whatever the last run left.
import { migrate } from '../../scripts/db/migrate.mjs';
import { TEST_DATABASE_URL } from './env';

export default async function setup(): Promise<void> {
  await migrate(TEST_DATABASE_URL, () => undefined);
}
