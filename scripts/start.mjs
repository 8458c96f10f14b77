#!/usr/bin/env node
// `npm start`: installs what is missing, finds or starts PostgreSQL and Redis (scripts/lib/services.mjs), builds
// what changed, migrates (creating the database), seeds the demo into an empty database, then runs api, worker and
// dashboard with prefixed logs. Ctrl-C stops all three, then the servers it started.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { build, ensureInstalled, ensureNode24, loadEnv, readEnv, root, run, say, unlessUnchanged } from './lib/bootstrap.mjs';
import { provideServices } from './lib/services.mjs';

ensureInstalled();
ensureNode24();

// A Ctrl-C reaches every process of the terminal's group: the apps' `concurrently`, a build step, and this script,
// which then stops the servers it started (they run in groups of their own, so they outlive the apps using them).
// A SIGTERM to this script alone is passed on to the apps.
let apps = null;
let services = null;
let stopping = false;
const onSignal = (signal) => {
  if (apps) {
    if (signal === 'SIGTERM') apps.kill('SIGTERM');
    return;
  }
  if (stopping) return;
  stopping = true;
  // Servers started before `services` is known are stopped by their exit handlers.
  void Promise.resolve(services?.stop()).finally(() => process.exit(130));
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

const given = readEnv();
// `/metrics` names every tenant and its traffic: on this machine it is served on a port of its own on the loopback
// interface (METRICS_HOST defaults to 127.0.0.1), unless .env or the environment say otherwise.
const env = { METRICS_PORT: '9464', ...loadEnv() };
services = await provideServices(given);
Object.assign(env, services.urls);
build();

say('migrating the database…');
const { migrate } = await import('./db/migrate.mjs');
await migrate(env.DATABASE_URL, (line) => say(line)).catch(async (err) => {
  await services.stop();
  say(`migrate: ${err.message}`);
  process.exit(1);
});
// The seed does nothing where the demo (or anything) is in already; it is only skipped when neither it nor the
// database it seeded changed since it last ran (the stamp holds the database's installation id).
const installation = await installationId(env.DATABASE_URL);
const seeded = unlessUnchanged('seed', { files: ['prisma/seed.ts', 'prisma/demo.ts'], extra: [env.DATABASE_URL, installation] }, () =>
  run('node', ['prisma/seed.ts'], { env: { DATABASE_URL: env.DATABASE_URL } }),
);
if (!seeded) say('the demo is seeded already');

const metrics = env.METRICS_PORT ? `http://${env.METRICS_HOST ?? '127.0.0.1'}:${env.METRICS_PORT}/metrics` : `/metrics${env.METRICS_TOKEN ? ' (bearer token)' : ': off'}`;
// The worker's own GET /health (WORKER_HEALTH_PORT: 3002 unless set; empty: off; 0: a free port its log names).
const workerPort = env.WORKER_HEALTH_PORT ?? '3002';
const workerHealth = workerPort === '' ? 'off' : workerPort === '0' ? 'on a free port (in its log)' : `http://localhost:${workerPort}/health`;
say(`starting: API http://localhost:${env.API_PORT} (docs /docs) · dashboard http://localhost:${env.DASHBOARD_PORT} · metrics ${metrics} · worker health ${workerHealth}`);
// The dashboard signs each browser's address for the API with a secret both share; one made up for this run will
// do locally. A deployment sets the same CLIENT_ADDRESS_SECRET on both (README, Configuration).
const clientAddressSecret = env.CLIENT_ADDRESS_SECRET || randomBytes(32).toString('hex');
apps = spawn(
  join(root, 'node_modules', '.bin', 'concurrently'),
  [
    '--names', 'api,worker,dashboard',
    '--prefix-colors', 'blue,magenta,green',
    '--kill-others',
    '--kill-signal', 'SIGTERM',
    'node apps/api/dist/main.js',
    'node apps/worker/dist/main.js',
    'node apps/dashboard/server.mts',
  ],
  {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      ...env,
      PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH}`,
      TOLLGATE_API_URL: env.TOLLGATE_API_URL ?? `http://127.0.0.1:${env.API_PORT}`,
      CLIENT_ADDRESS_SECRET: clientAddressSecret,
      NODE_ENV: 'production',
    },
  },
);
const code = await new Promise((resolve) => apps.once('exit', (status, signal) => resolve(status ?? (signal ? 130 : 1))));
await services.stop();
process.exit(code);

/** The database's installation id (its one-row `installation` table), or '' where there is none yet. */
async function installationId(url) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query('select id from installation limit 1');
    return rows[0]?.id ?? '';
  } catch {
    return '';
  } finally {
    await client.end();
  }
}
