import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as domain from '@tollgate/domain';
import type { z } from 'zod';
import { apiEnvSchema } from '../../apps/api/src/config/config';
import { dashboardEnvSchema } from '../../apps/dashboard/lib/config';
import { serverEnvSchema } from '../../apps/dashboard/lib/server-config.mts';
import { workerEnvSchema } from '../../apps/worker/src/config/config';
import { REPO_ROOT } from './repo-tree';

// What the deployment files (docker/compose.scale.yml, deploy/kubernetes/) are checked against: which app a container
// runs, the variables that app reads, what its image sets itself, and what the apps serve their probes on. No container
// engine runs where the suite runs, so these files are checked by reading them, never by starting them.

export const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), 'utf8');

export type AppName = 'api' | 'worker' | 'dashboard' | 'migrate';

interface App {
  /** The schemas the app validates its environment with (none for the migration script, which reads one variable). */
  schemas: z.ZodType[];
  variables: Set<string>;
  dockerfile: string;
  /** Variables a container must set: each schema's default names 127.0.0.1, which is nobody inside a container. */
  required: string[];
}

const keysOf = (...schemas: { shape: object }[]) => new Set(schemas.flatMap((s) => Object.keys(s.shape)));
/** `process.env.X` in the migration runner and the seed, the scripts the one-shot migration container runs. */
const migrateVariables = new Set(
  ['scripts/db/migrate.mjs', 'prisma/seed.ts'].flatMap((file) => [...read(file).matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!)),
);

export const APPS: Record<AppName, App> = {
  api: {
    schemas: [apiEnvSchema],
    variables: keysOf(apiEnvSchema),
    dockerfile: 'docker/api.Dockerfile',
    required: ['DATABASE_URL', 'REDIS_URL', 'REDIS_CLUSTER_NODES', 'CLIENT_ADDRESS_SECRET'],
  },
  worker: {
    schemas: [workerEnvSchema],
    variables: keysOf(workerEnvSchema),
    dockerfile: 'docker/worker.Dockerfile',
    required: ['DATABASE_URL', 'REDIS_URL', 'REDIS_CLUSTER_NODES', 'QUEUE_PREFIX'],
  },
  dashboard: {
    schemas: [dashboardEnvSchema, serverEnvSchema(domain)],
    variables: keysOf(dashboardEnvSchema, serverEnvSchema(domain)),
    dockerfile: 'docker/dashboard.Dockerfile',
    required: ['TOLLGATE_API_URL', 'CLIENT_ADDRESS_SECRET'],
  },
  migrate: { schemas: [], variables: migrateVariables, dockerfile: 'docker/api.Dockerfile', required: ['DATABASE_URL'] },
};

/** The app a container runs: by its image's name (`tollgate/api:local`, `registry/tollgate/api`), the API image running the migrations as `migrate`. */
export function appOf(image: string | undefined, command: unknown): AppName | null {
  const name = /(?:^|\/)tollgate\/(api|worker|dashboard)(?::[\w.-]+)?$/.exec(image ?? '')?.[1] as AppName | undefined;
  if (name === 'api' && JSON.stringify(command ?? '').includes('scripts/db/migrate.mjs')) return 'migrate';
  return name ?? null;
}

/** The `ENV` of a Dockerfile's last stage (what the running image sets before any deployment file does). */
export function imageEnv(dockerfile: string): Record<string, string> {
  const lastStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const lines = lastStage.split('\n').filter((line) => line.startsWith('ENV '));
  return Object.fromEntries(lines.flatMap((line) => [...line.matchAll(/([A-Z][A-Z0-9_]*)=(\S+)/g)].map((m) => [m[1]!, m[2]!])));
}

/**
 * What is wrong with the environment a deployment file gives a container of `app`: a variable the app does not read,
 * a required one left out, or a value its schema refuses (with the image's own ENV beneath, as the container sees it).
 */
export function envProblems(app: AppName, env: Record<string, string>): string[] {
  const { schemas, variables, dockerfile, required } = APPS[app];
  const unknown = Object.keys(env).filter((name) => !variables.has(name)).map((name) => `${name}: not read by the ${app}`);
  const missing = required.filter((name) => !env[name]).map((name) => `${name}: required in a container, not set`);
  const seen = { ...imageEnv(read(dockerfile)), ...env };
  const refused = schemas.flatMap((schema) => schema.safeParse(seen).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? []);
  return [...unknown, ...missing, ...refused];
}

/** `host` of each `host:port` seed of REDIS_CLUSTER_NODES. */
export const clusterHosts = (nodes: string) => nodes.split(',').map((seed) => seed.trim().replace(/:\d+$/, ''));

/**
 * The paths the apps answer a probe on, read from their source: the API's health controller (`@Get('health')`, then
 * `@Get('health/ready')`), the worker's health server (`path !== '/health'`), and the dashboard's sign-in page, which
 * its proxy serves without a session (the dashboard has no health route of its own).
 */
export function servedProbePaths(): Record<'api' | 'worker' | 'dashboard', string[]> {
  const controller = read('apps/api/src/modules/health/health.controller.ts');
  const api = ['health', 'health/ready'].filter((route) => controller.includes(`@Get('${route}')`)).map((route) => `/${route}`);
  const worker = /path !== '\/health'/.test(read('apps/worker/src/health/health-server.ts')) ? ['/health'] : [];
  const servesLogin = existsSync(path.join(REPO_ROOT, 'apps/dashboard/app/login/page.tsx')) && /pathname === '\/login'/.test(read('apps/dashboard/proxy.ts'));
  return { api, worker, dashboard: servesLogin ? ['/login'] : [] };
}

/** The port a container of `app` listens on for what it serves, from its environment (the schema's default if unset). */
export function servedPort(app: 'api' | 'worker' | 'dashboard', env: Record<string, string>): number {
  const seen = { ...imageEnv(read(APPS[app].dockerfile)), ...env };
  const data = APPS[app].schemas[APPS[app].schemas.length - 1]!.parse(seen) as Record<string, unknown>;
  const port = { api: 'API_PORT', worker: 'WORKER_HEALTH_PORT', dashboard: 'DASHBOARD_PORT' }[app];
  return Number(data[port]);
}
