#!/usr/bin/env node
// `npm start`: installs what is missing, checks Postgres and Redis, migrates (creating the database), seeds
// the demo into an empty database, builds, then runs api, worker and dashboard with prefixed logs.
// Ctrl-C stops all three.
import { join } from 'node:path';
import { build, checkServices, ensureInstalled, ensureNode24, loadEnv, root, run, say } from './lib/bootstrap.mjs';

ensureInstalled();
ensureNode24();

const env = loadEnv();
await checkServices(env);
build();
say('migrating the database…');
run('node', ['scripts/db/migrate.mjs', env.DATABASE_URL]);
run('node', ['prisma/seed.ts'], { env: { DATABASE_URL: env.DATABASE_URL } });

say(`starting: API http://localhost:${env.API_PORT} (docs /docs) · dashboard http://localhost:${env.DASHBOARD_PORT}`);
const next = join(root, 'node_modules', 'next', 'dist', 'bin', 'next');
run(
  'concurrently',
  [
    '--names', 'api,worker,dashboard',
    '--prefix-colors', 'blue,magenta,green',
    '--kill-others',
    '--kill-signal', 'SIGTERM',
    'node apps/api/dist/main.js',
    'node apps/worker/dist/main.js',
    `node ${next} start apps/dashboard --port ${env.DASHBOARD_PORT}`,
  ],
  { env: { ...env, TOLLGATE_API_URL: env.TOLLGATE_API_URL ?? `http://127.0.0.1:${env.API_PORT}`, NODE_ENV: 'production' } },
);
