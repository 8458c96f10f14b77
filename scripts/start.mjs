#!/usr/bin/env node
// `npm start`: installs what is missing, checks Postgres and Redis, migrates (creating the database), seeds
// the demo into an empty database, builds, then runs api, worker and dashboard with prefixed logs.
// Ctrl-C stops all three.
import { randomBytes } from 'node:crypto';
import { build, checkServices, ensureInstalled, ensureNode24, loadEnv, run, say } from './lib/bootstrap.mjs';

ensureInstalled();
ensureNode24();

// `/metrics` names every tenant and its traffic: on this machine it is served on a port of its own on the loopback
// interface (METRICS_HOST defaults to 127.0.0.1), unless .env or the environment say otherwise.
const env = { METRICS_PORT: '9464', ...loadEnv() };
await checkServices(env);
build();
say('migrating the database…');
run('node', ['scripts/db/migrate.mjs', env.DATABASE_URL]);
run('node', ['prisma/seed.ts'], { env: { DATABASE_URL: env.DATABASE_URL } });

const metrics = env.METRICS_PORT ? `http://${env.METRICS_HOST ?? '127.0.0.1'}:${env.METRICS_PORT}/metrics` : `/metrics${env.METRICS_TOKEN ? ' (bearer token)' : ': off'}`;
say(`starting: API http://localhost:${env.API_PORT} (docs /docs) · dashboard http://localhost:${env.DASHBOARD_PORT} · metrics ${metrics}`);
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
