import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/stack';

// `npm start` with no DATABASE_URL and no REDIS_URL runs a PostgreSQL (from the npm registry) and a redis-server of
// its own; Ctrl-C stops them after the apps, and the next start finds the data again. Here its state (normally
// .tollgate) is a temporary folder and every port a free one: the developer's demo data, the PostgreSQL on 5432 and
// the Redis on 6379 are not touched. The builds are the suite's (Nx replays them from its cache).
const root = join(__dirname, '..', '..');
const state = mkdtempSync(join(tmpdir(), 'tollgate-npm-start-'));
chmodSync(state, 0o755); // as root, the server's own user must reach its data
let running: ChildProcess | null = null;

afterAll(async () => {
  if (running && running.exitCode === null) await interrupt(running);
  rmSync(state, { recursive: true, force: true });
});

async function start(ports: { api: number; dashboard: number; metrics: number }) {
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: root,
    // A group of its own, as in a terminal, so that a Ctrl-C can be sent to all of it.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      // Empty wins over a developer's .env: the servers of its own.
      DATABASE_URL: '',
      REDIS_URL: '',
      TOLLGATE_POSTGRES: 'embedded',
      TOLLGATE_REDIS: 'own',
      TOLLGATE_STATE_DIR: state,
      API_PORT: String(ports.api),
      DASHBOARD_PORT: String(ports.dashboard),
      METRICS_PORT: String(ports.metrics),
      // Any free port: the worker's default (3002) may be another run's.
      WORKER_HEALTH_PORT: '0',
      NO_COLOR: '1',
    },
  });
  running = child;
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const healthy = (async () => {
    while (child.exitCode === null) {
      const ok = await fetch(`http://127.0.0.1:${ports.api}/health`).then((r) => r.ok, () => false);
      if (ok) return true;
      await new Promise((r) => setTimeout(r, 250));
    }
    return false;
  })();
  const up = await Promise.race([healthy, exited.then(() => false)]);
  if (!up) throw new Error(`npm start did not reach /health:\n${output.slice(-3000)}`);
  return { child, output: () => output };
}

/** Ctrl-C: SIGINT to the whole group, as a terminal sends it; resolves when npm start has exited. */
function interrupt(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    process.kill(-child.pid!, 'SIGINT');
  });
}

async function tenants(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ slug: string }>('select slug from tenants order by slug')).rows.map((r) => r.slug);
  } finally {
    await client.end();
  }
}

describe('npm start on a machine without PostgreSQL or Redis of its own', () => {
  // Two starts, the first creating the cluster and the database: more than the suite's 60 s on a loaded machine.
  it('runs its own, stops them on Ctrl-C, and finds the demo again on the next start', { timeout: 180_000 }, async () => {
    const ports = { api: await freePort(), dashboard: await freePort(), metrics: await freePort() };
    const first = await start(ports);
    const pgPort = Number(readFileSync(join(state, 'postgres.port'), 'utf8'));
    const url = `postgresql://postgres@127.0.0.1:${pgPort}/tollgate`;
    expect(pgPort).not.toBe(5432);
    expect(await tenants(url)).toEqual(['acme', 'globex']);
    expect(existsSync(join(state, 'redis', 'redis.pid'))).toBe(true);

    await interrupt(first.child);
    // PostgreSQL shut down cleanly (it removes its pid file) and so did the redis-server.
    expect(existsSync(join(state, 'postgres', 'postmaster.pid'))).toBe(false);
    expect(existsSync(join(state, 'redis', 'redis.pid'))).toBe(false);
    await expect(tenants(url)).rejects.toThrow();

    const second = await start(ports);
    expect(second.output()).toContain('the demo is seeded already');
    expect(second.output()).toContain('the Prisma client is up to date');
    expect(await tenants(url)).toEqual(['acme', 'globex']);
    await interrupt(second.child);
    expect(existsSync(join(state, 'postgres', 'postmaster.pid'))).toBe(false);
  });
});
