#!/usr/bin/env node
// `npm start`: installs what is missing, finds or starts PostgreSQL and Redis (scripts/lib/services.mjs) while it
// builds what changed, migrates (creating the database), seeds the demo into an empty database, then runs api, worker
// and dashboard with prefixed logs (readable lines on a terminal, JSON otherwise: LOG_FORMAT), and once all three
// answer prints where they are and the demo's sign-in, last. Ctrl-C stops all three, then the servers it started.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { build, ensureInstalled, ensureNode24, loadEnv, readEnv, root, run, say, stateDir, unlessUnchanged } from './lib/bootstrap.mjs';
import { freePort } from './lib/redis-server.mjs';
import { provideServices } from './lib/services.mjs';

ensureInstalled();
await ensureNode24();

// A Ctrl-C reaches every process of the terminal's group: a build step, and this script, which then stops the
// servers it started (they run in groups of their own, so they outlive the apps using them). The apps' `concurrently`
// runs in a group of its own too: a SIGINT or SIGTERM reaches it from this script only, once, whether it came from a
// terminal or was sent to this script alone (`kill -INT <pid>`); it passes it on to the three apps, and this script
// exits when they have.
let apps = null;
let services = null;
let stopping = false;
let passedOn = false;
const onSignal = (signal) => {
  if (apps) {
    if (!passedOn) apps.kill(signal);
    passedOn = true;
    return;
  }
  if (stopping) return;
  stopping = true;
  // Servers started before `services` is known are stopped by their exit handlers.
  void Promise.resolve(services?.stop()).finally(() => process.exit(130));
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
// The terminal closing: the apps are not in its group any more, so they hear of it from here.
process.on('SIGHUP', onSignal);

const given = readEnv();
// `/metrics` names every tenant and its traffic: on this machine it is served on a port of its own on the loopback
// interface (METRICS_HOST defaults to 127.0.0.1), unless .env or the environment say otherwise.
const env = { METRICS_PORT: '9464', ...loadEnv() };
// The build needs neither server: both are started (or found) while it runs.
const [provided] = await Promise.all([provideServices(given).then((s) => (services = s)), build()]);
Object.assign(env, provided.urls);

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
// The worker's own GET /health (WORKER_HEALTH_PORT: 3002 unless set; empty: off; 0: a free port, chosen here so
// that the banner can name it).
if (env.WORKER_HEALTH_PORT === '0') env.WORKER_HEALTH_PORT = String(await freePort());
const workerPort = env.WORKER_HEALTH_PORT ?? '3002';
// Readable lines for a person at a terminal, JSON lines for a file, a pipe or CI (LOG_FORMAT says which, if set).
const logFormat = env.LOG_FORMAT || (process.stdout.isTTY && !env.CI ? 'pretty' : 'json');
const demo = await demoSignIn(env.DATABASE_URL);
say('starting api, worker and dashboard…');
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
    detached: true,
    env: {
      ...process.env,
      ...env,
      PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH}`,
      TOLLGATE_API_URL: env.TOLLGATE_API_URL ?? `http://127.0.0.1:${env.API_PORT}`,
      CLIENT_ADDRESS_SECRET: clientAddressSecret,
      NODE_ENV: 'production',
      LOG_FORMAT: logFormat,
      NEXT_TELEMETRY_DISABLED: '1',
      // V8's compiled code of the apps' modules kept between starts: most of a start is loading them.
      NODE_COMPILE_CACHE: env.NODE_COMPILE_CACHE ?? join(stateDir, 'compile-cache'),
    },
  },
);
const exited = new Promise((resolve) => apps.once('exit', (status, signal) => resolve(status ?? (signal ? 130 : 1))));
const api = `http://localhost:${env.API_PORT}`;
const dashboard = `http://localhost:${env.DASHBOARD_PORT}`;
const workerHealth = workerPort === '' ? null : `http://localhost:${workerPort}/health`;
void Promise.race([exited.then(() => false), answering([`${api}/health`, `${dashboard}/login`, ...(workerHealth ? [workerHealth] : [])])]).then((ready) => {
  if (!ready) return;
  const rows = [
    ['dashboard', dashboard, demo ? `sign in: ${demo.email} / ${demo.password}` : ''],
    ['API', api, `docs ${api}/docs`],
    ['worker health', workerHealth ?? 'off (WORKER_HEALTH_PORT is empty)', ''],
    ['metrics', metrics, ''],
  ];
  const lines = rows.map(([name, where, more]) => `  ${name.padEnd(14)}${more ? `${where.padEnd(28)} ${more}` : where}`);
  say(`ready in ${(performance.now() / 1000).toFixed(1)} s\n${lines.join('\n')}\n  Ctrl-C stops everything.`);
});
const code = await exited;
await services.stop();
process.exit(code);

/** Resolves once every URL answers (without a server error), asking again every 250 ms. */
async function answering(urls) {
  const answers = (url) => fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(2000) }).then((r) => r.status < 500, () => false);
  const waiting = new Set(urls);
  while (waiting.size > 0) {
    for (const url of [...waiting]) if (await answers(url)) waiting.delete(url);
    if (waiting.size > 0) await new Promise((r) => setTimeout(r, 250));
  }
  return true;
}

/** The demo operator's e-mail and password (prisma/demo.ts) when the database has that user, else null. */
async function demoSignIn(url) {
  const { DEMO_OPERATOR } = await import('../prisma/demo.ts');
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from users where email = $1', [DEMO_OPERATOR.email]);
    return rowCount > 0 ? DEMO_OPERATOR : null;
  } finally {
    await client.end();
  }
}

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
