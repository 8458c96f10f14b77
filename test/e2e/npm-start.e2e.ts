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
// the Redis on 6379 are not touched. The builds are the suite's (Nx has them in its cache). The logs are asked for
// as on a terminal (LOG_FORMAT=pretty: the output here is a pipe, where npm start would choose JSON lines).
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
      LOG_FORMAT: 'pretty',
    },
  });
  running = child;
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // Ready when it says so: the banner, printed once API, dashboard and worker all answer.
  const ready = (async () => {
    while (child.exitCode === null && !/Ctrl-C stops everything\./.test(output)) await new Promise((r) => setTimeout(r, 250));
    return child.exitCode === null;
  })();
  const up = await Promise.race([ready, exited.then(() => false)]);
  if (!up) throw new Error(`npm start printed no banner:\n${output.slice(-3000)}`);
  return { child, output: () => output };
}

/** What the banner names: each row's first URL, and the demo's sign-in. */
function banner(output: string) {
  const text = output.slice(output.lastIndexOf('ready in'));
  const url = (name: string) => new RegExp(`^  ${name}\\s+(http://\\S+)`, 'm').exec(text)?.[1];
  const signIn = /sign in: (\S+) \/ (\S+)/.exec(text);
  return { dashboard: url('dashboard'), api: url('API'), workerHealth: url('worker health'), email: signIn?.[1], password: signIn?.[2] };
}

/** The apps' lines (concurrently's prefix taken off). */
function appLines(output: string): string[] {
  return output.split('\n').flatMap((line) => {
    const m = /^\[(api|worker|dashboard)\] (.*)$/.exec(line);
    return m ? [m[2]!] : [];
  });
}

/**
 * Ctrl-C: SIGINT to the whole group, as a terminal sends it (or, `alone`, to npm start's own process only, as
 * `kill -INT <pid>` or a process manager sends it); resolves when npm start has exited.
 */
function interrupt(child: ChildProcess, alone = false): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    process.kill(alone ? child.pid! : -child.pid!, 'SIGINT');
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
  it('runs its own, stops them on Ctrl-C, and finds the demo again on the next start', { timeout: 300_000 }, async () => {
    const ports = { api: await freePort(), dashboard: await freePort(), metrics: await freePort() };
    const first = await start(ports);
    // The banner comes after the apps' start-up lines, names URLs that answer and a sign-in that works.
    const out = first.output();
    const at = out.lastIndexOf('ready in');
    for (const line of ['Nest application successfully started', 'worker started', 'tollgate dashboard: listening on']) expect(out.lastIndexOf(line)).toBeLessThan(at);
    const shown = banner(out);
    expect(shown).toEqual({
      dashboard: `http://localhost:${ports.dashboard}`,
      api: `http://localhost:${ports.api}`,
      workerHealth: expect.stringMatching(/^http:\/\/localhost:\d+\/health$/),
      email: 'admin@tollgate.local',
      password: 'tollgate-demo',
    });
    expect((await fetch(`${shown.dashboard}/login`)).status).toBe(200);
    expect((await fetch(`${shown.api}/health`)).status).toBe(200);
    expect((await fetch(shown.workerHealth!)).status).toBe(200);
    const signIn = await fetch(`${shown.api}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: shown.email, password: shown.password }),
    });
    expect(signIn.status).toBe(200);
    expect(await signIn.json()).toMatchObject({ token: expect.stringMatching(/^tg_sess_/) });
    // Readable lines, not JSON, from api and worker alike.
    const lines = appLines(out);
    expect(lines.filter((l) => /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: /.test(l)).length).toBeGreaterThan(10);
    expect(lines.filter((l) => l.trimStart().startsWith('{'))).toEqual([]);
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
    // Nothing was built: one line says so, no build's log is replayed from Nx's cache, Next.js says nothing of telemetry.
    expect(second.output()).toContain('built (cached)');
    expect(second.output()).not.toMatch(/> nx run|next build|telemetry/i);
    expect(await tenants(url)).toEqual(['acme', 'globex']);
    // A SIGINT to npm start alone stops the apps too (they run in a group of their own, which it tells), then the servers.
    await interrupt(second.child, true);
    await expect(fetch(`${shown.api}/health`)).rejects.toThrow();
    await expect(fetch(`${shown.dashboard}/login`)).rejects.toThrow();
    expect(existsSync(join(state, 'postgres', 'postmaster.pid'))).toBe(false);
    expect(existsSync(join(state, 'redis', 'redis.pid'))).toBe(false);
  });
});
