#!/usr/bin/env node
// `npm test`: type checks, lint (module boundaries included), then the unit, integration and end-to-end
// suites against a test database that is recreated empty for the run. Ends with `N passed, N failed`.
// Arguments are passed to every Vitest run (e.g. `npm test -- -t "hot reload"`). The suites run against a
// redis-server of the run's own on a free port (never a Redis the user runs, whatever its port or database).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build, ensureInstalled, ensureNode24, fail, readEnv, root, run, say } from './lib/bootstrap.mjs';
import { hasRedisServer, startRedisServer } from './lib/redis-server.mjs';
import { checkServices, provideTestPostgres } from './lib/services.mjs';

ensureInstalled();
await ensureNode24();

// Ctrl-C: the servers of the run's own go with it (its PostgreSQL runs in a process group of its own). While a
// step runs, this is seen when the step returns.
let postgres = null;
// A repeated SIGINT (a terminal's Ctrl-C and the same passed on by npm) is the first.
let interrupted = null;
process.on('SIGINT', () => void (interrupted ??= Promise.resolve(postgres?.stop()).finally(() => process.exit(130))));
// The test database: TEST_DATABASE_URL's, else tollgate_test on 127.0.0.1:5432, else (nothing answers there, or
// TOLLGATE_POSTGRES=embedded) on a PostgreSQL of the run's own from the npm registry, in a temporary folder.
postgres = await provideTestPostgres(readEnv(), 'postgresql://postgres@127.0.0.1:5432/tollgate_test');
await checkServices({ DATABASE_URL: postgres.url }, { redis: false });
if (!hasRedisServer()) {
  fail(
    'the tests start Redis servers of their own (one, and a 3-primary cluster), but redis-server is not on the PATH.\n' +
      '  • on Debian/Ubuntu: apt-get install -y redis-server\n' +
      '  • with Homebrew:    brew install redis',
  );
}
await build();

say('type checking…');
run('nx', ['run-many', '-t', 'typecheck', '--output-style=static']);
run('tsc', ['-p', 'test/tsconfig.json', '--noEmit']);
say('linting (module boundaries included)…');
run('eslint', ['.', '--max-warnings=0']);

say('starting a redis-server of the test run\'s own…');
const redis = await startRedisServer();
const testEnv = {
  TEST_DATABASE_URL: postgres.url,
  TEST_REDIS_URL: `${redis.url}/0`,
  TEST_REDIS_DIR: redis.dir,
};
say('recreating the test database…');
await recreateTestDatabase(testEnv.TEST_DATABASE_URL);

const outDir = join(root, 'test-results');
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const totals = { passed: 0, failed: 0, skipped: 0 };
for (const project of ['unit', 'integration', 'e2e']) {
  say(`running the ${project} suite…`);
  const report = join(outDir, `${project}.json`);
  const result = spawnSync(
    join(root, 'node_modules', '.bin', 'vitest'),
    ['run', '--project', project, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)],
    { cwd: root, stdio: 'inherit', env: { ...process.env, ...testEnv, NO_COLOR: '1', NX_DAEMON: 'false', NX_NO_CLOUD: 'true' } },
  );
  if (result.signal === 'SIGINT' || result.status === 130) {
    await redis.stop();
    await postgres.stop();
    process.exit(130);
  }
  const counts = readCounts(report);
  if (!counts) {
    say(`the ${project} suite did not report (exit ${result.status ?? result.signal}); counted as one failure`);
    totals.failed += 1;
    continue;
  }
  totals.passed += counts.passed;
  totals.failed += counts.failed + (result.status !== 0 && counts.failed === 0 ? 1 : 0);
  totals.skipped += counts.skipped;
}

await redis.stop();
await postgres.stop();
console.log(`\n${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`);
process.exit(totals.failed > 0 ? 1 : 0);

function readCounts(file) {
  if (!existsSync(file)) return null;
  const r = JSON.parse(readFileSync(file, 'utf8'));
  return {
    passed: r.numPassedTests ?? 0,
    failed: (r.numFailedTests ?? 0) + (r.numRuntimeErrorTestSuites ?? 0),
    skipped: (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0),
  };
}

/** Drops and recreates the test database, migrated. */
async function recreateTestDatabase(url) {
  const { default: pg } = await import('pg');
  const { migrate } = await import('./db/migrate.mjs');
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  const admin = new pg.Client({ connectionString: Object.assign(new URL(url), { pathname: '/postgres' }).toString() });
  await admin.connect();
  await admin.query(`drop database if exists "${name.replaceAll('"', '""')}" with (force)`);
  await admin.end();
  await migrate(url, () => undefined);
}
