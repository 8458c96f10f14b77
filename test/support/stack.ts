import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { DEMO_OPERATOR } from '../../prisma/demo';
import { migrate } from '../../scripts/db/migrate.mjs';
import { freePort } from '../../scripts/lib/redis-server.mjs';
import { TEST_DATABASE_URL, TEST_REDIS_URL, testDatabaseUrl, testRedisUrl } from './env';
import { sleep, waitFor } from './fixtures';

const root = join(__dirname, '..', '..');

/**
 * The end-to-end tests assert decisions, not latency: on a loaded machine a script call can outlast the production
 * deadline (50 ms), and the check would be decided by its failure mode (open: allowed) instead of by Redis.
 */
const E2E_DECISION_DEADLINE_MS = '2000';

/** The demo as `npm start` runs it, built, on free ports, against a database and Redis database of its own. */
export interface Stack {
  apiUrl: string;
  dashboardUrl: string;
  databaseUrl: string;
  logs(): string;
  stop(): Promise<void>;
}

/**
 * `env`: settings of the API and the dashboard beyond the demo's (e.g. tighter sign-in throttling; another Redis, such
 * as a Redis Sentinel's REDIS_SENTINELS). `dashboard: false`: the API and the worker only (`dashboardUrl` is then empty).
 */
export async function startStack(name: string, extraEnv: Record<string, string> = {}, { dashboard = true }: { dashboard?: boolean } = {}): Promise<Stack> {
  const databaseUrl = testDatabaseUrl(name);
  const redisUrl = testRedisUrl(2);
  await recreateDatabase(databaseUrl);
  const redis = new Redis(redisUrl);
  await redis.flushdb();
  redis.disconnect();
  await runNode(['prisma/seed.ts'], { DATABASE_URL: databaseUrl });

  const [apiPort, dashboardPort] = await Promise.all([freePort(), freePort()]);
  const env = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    API_PORT: String(apiPort),
    API_HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    LOGIN_ATTEMPTS_PER_MINUTE_PER_ADDRESS: '1000000',
    // Shared by the dashboard (which signs each browser's address with it) and the API, as scripts/start.mjs does.
    CLIENT_ADDRESS_SECRET: randomBytes(32).toString('hex'),
    DECISION_DEADLINE_MS: E2E_DECISION_DEADLINE_MS,
    ...extraEnv,
  };
  const output: string[] = [];
  const children = [
    launch('api', ['apps/api/dist/main.js'], env, output),
    launch('worker', ['apps/worker/dist/main.js'], { ...env, WORKER_HEALTH_PORT: '0' }, output),
    ...(dashboard ? [launch('dashboard', ['apps/dashboard/server.mts'], { ...env, DASHBOARD_PORT: String(dashboardPort), TOLLGATE_API_URL: `http://127.0.0.1:${apiPort}` }, output)] : []),
  ];
  const stack: Stack = {
    apiUrl: `http://127.0.0.1:${apiPort}`,
    dashboardUrl: dashboard ? `http://127.0.0.1:${dashboardPort}` : '',
    databaseUrl,
    logs: () => output.join(''),
    stop: async () => {
      await Promise.all(children.map((c) => stop(c)));
    },
  };
  try {
    // Waits, not bounds: on a machine at load 30 the API alone took 23 s to answer.
    await until(async () => (await fetch(`${stack.apiUrl}/health`)).status === 200, 90_000);
    if (dashboard) await until(async () => (await fetch(`${stack.dashboardUrl}/login`)).status === 200, 90_000);
  } catch (err) {
    await stack.stop();
    throw new Error(`the stack did not come up: ${String(err)}\n${stack.logs()}`);
  }
  return stack;
}

/** What a call of `operatorApi` answered: its status and its JSON body (`{}` for none). */
export interface ApiAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** The stack's admin API as the demo operator (signed in once): for a test's fixtures and checks beside the browser. */
export async function operatorApi(stack: Stack): Promise<(method: string, path: string, body?: unknown) => Promise<ApiAnswer>> {
  const login = await fetch(`${stack.apiUrl}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(DEMO_OPERATOR) });
  const { token } = (await login.json()) as { token: string };
  return async (method, path, body) => {
    const res = await fetch(`${stack.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
  };
}

/**
 * One call of the stack's API with `token`, for a test's fixtures: the JSON body of a 2xx answer; any other status
 * throws, naming the call and what it answered.
 */
export async function adminCall(stack: Stack, token: string, method: string, path: string, body?: unknown): Promise<Record<string, any>> { // eslint-disable-line @typescript-eslint/no-explicit-any -- asserted field by field
  const res = await fetch(`${stack.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- asserted field by field
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

/** A session token of the demo's operator (DEMO_OPERATOR) from the stack's API. */
export async function signInOperator(stack: Stack): Promise<string> {
  return (await adminCall(stack, '', 'POST', '/v1/auth/login', DEMO_OPERATOR)).token as string;
}

/** Waits until the API at `apiUrl` enforces rule set `version` or a later one, as its `GET /health` says. */
export async function ruleVersionInForce(apiUrl: string, version: number, timeoutMs?: number, intervalMs?: number): Promise<void> {
  await waitFor(async () => ((await (await fetch(`${apiUrl}/health`)).json()) as { ruleVersion: number }).ruleVersion >= version, timeoutMs, intervalMs);
}

/** The stack's worker writes the open minute's counts so far every second, and rolls a closed minute up at once. */
export const LIVE_USAGE = { USAGE_GRACE_S: '0', USAGE_ROLLUP_EVERY_MS: '1000', USAGE_LIVE_EVERY_MS: '1000' } as const;

/** `n` API processes (the built app) on free ports against the test database and Redis. */
export async function startApiProcesses(
  n: number,
  extraEnv: Record<string, string> = {},
): Promise<{ urls: string[]; processes: ChildProcess[]; logs(): string; stop(): Promise<void> }> {
  const output: string[] = [];
  const ports = await Promise.all(Array.from({ length: n }, () => freePort()));
  const children = ports.map((port, i) =>
    launch(`api-${i + 1}`, ['apps/api/dist/main.js'], {
      DATABASE_URL: TEST_DATABASE_URL,
      REDIS_URL: TEST_REDIS_URL,
      API_PORT: String(port),
      API_HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      LOGIN_ATTEMPTS_PER_MINUTE_PER_ADDRESS: '1000000',
      DECISION_DEADLINE_MS: E2E_DECISION_DEADLINE_MS,
      ...extraEnv,
    }, output),
  );
  const urls = ports.map((port) => `http://127.0.0.1:${port}`);
  const handle = { urls, processes: children, logs: () => output.join(''), stop: () => Promise.all(children.map((c) => stop(c))).then(() => undefined) };
  try {
    // Several processes start at once on a machine that may be busy: each is given a minute.
    for (const url of urls) await until(async () => (await fetch(`${url}/health`)).status === 200, 60_000);
  } catch (err) {
    await handle.stop();
    throw new Error(`the API processes did not come up: ${String(err)}\n${handle.logs()}`);
  }
  return handle;
}

export interface WorkerProcess {
  process: ChildProcess;
  logs(): string;
  /** SIGTERM (then SIGKILL after 5 s), or the signal given, and its exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** The worker (the built app) against the test database and Redis, or those `extraEnv` names; `/health` on a free port. */
export function startWorker(extraEnv: Record<string, string> = {}): WorkerProcess {
  const output: string[] = [];
  const env = { DATABASE_URL: TEST_DATABASE_URL, REDIS_URL: TEST_REDIS_URL, LOG_LEVEL: 'warn', NODE_ENV: 'production', WORKER_HEALTH_PORT: '0', ...extraEnv };
  const child = launch('worker', ['apps/worker/dist/main.js'], env, output);
  return { process: child, logs: () => output.join(''), stop: (signal) => stop(child, signal) };
}

function launch(name: string, args: string[], env: Record<string, string>, output: string[]): ChildProcess {
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const keep = (chunk: Buffer) => output.push(`[${name}] ${chunk.toString()}`);
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return child;
}

async function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** Runs `node <args>` to completion; resolves with its output, rejects on a non-zero exit. */
export function runNode(args: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('exit', (code) => (code === 0 ? resolve({ code, output }) : reject(Object.assign(new Error(output), { code }))));
  });
}

/** Drops the database `url` names, if it exists (connections to it are ended). */
export async function dropDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: Object.assign(new URL(url), { pathname: '/postgres' }).toString() });
  await admin.connect();
  await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.end();
}

/** Drops the database if it exists, then creates and migrates it. */
export async function recreateDatabase(url: string): Promise<void> {
  await dropDatabase(url);
  await migrate(url, () => undefined);
}

/**
 * A database and a Redis database of the calling file's own, both empty (the database migrated): for files that
 * restore versions or empty Redis, which would roll back or wipe another file's fixtures.
 */
export async function ownStores(name: string, redisOffset: number): Promise<{ databaseUrl: string; redisUrl: string }> {
  const databaseUrl = testDatabaseUrl(name);
  const redisUrl = testRedisUrl(redisOffset);
  await recreateDatabase(databaseUrl);
  const redis = new Redis(redisUrl);
  await redis.flushdb();
  redis.disconnect();
  return { databaseUrl, redisUrl };
}

/** A port nothing listens on right now. */
export { freePort } from '../../scripts/lib/redis-server.mjs';

async function until(probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const start = Date.now();
  for (;;) {
    try {
      if (await probe()) return;
    } catch {
      // not listening yet
    }
    if (Date.now() - start > timeoutMs) throw new Error(`not ready within ${timeoutMs} ms`);
    await sleep(200);
  }
}
