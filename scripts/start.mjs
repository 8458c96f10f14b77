#!/usr/bin/env node
// `npm start`: installs what is missing, checks Postgres and Redis, migrates (creating the database), seeds
// the demo into an empty database, builds, then runs api, worker and dashboard with prefixed logs.
// Ctrl-C stops all three.
import { randomBytes } from 'node:crypto';
import { build, checkServices, ensureInstalled, ensureNode24, loadEnv, run, say } from './lib/bootstrap.mjs';

ensureInstalled();
ensureNode24();

const env = loadEnv();
await checkServices(env);
build();
say('migrating the database…');
run('node', ['scripts/db/migrate.mjs', env.DATABASE_URL]);
run('node', ['prisma/seed.ts'], { env: { DATABASE_URL: env.DATABASE_URL } });

say(`starting: API http://localhost:${env.API_PORT} (docs /docs) · dashboard http://localhost:${env.DASHBOARD_PORT}`);
// The dashboard signs each browser's address for the API with a secret both share; one made up for this run will
// do locally. A deployment sets the same CLIENT_ADDRESS_SECRET on both (README, Configuration).
const clientAddressSecret = env.CLIENT_ADDRESS_SECRET || randomBytes(32).toString('hex');
run(
  'concurrently',
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
    env: {
      ...env,
      TOLLGATE_API_URL: env.TOLLGATE_API_URL ?? `http://127.0.0.1:${env.API_PORT}`,
      CLIENT_ADDRESS_SECRET: clientAddressSecret,
      NODE_ENV: 'production',
    },
  },
);
