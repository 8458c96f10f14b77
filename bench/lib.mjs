// Shared by the benchmarks: machine facts, timing loops, and the results file.
import { execFileSync, spawn } from 'node:child_process';
import { cpus, totalmem } from 'node:os';

export function machine() {
  const redis = execFileSync('redis-server', ['--version']).toString().match(/v=(\S+)/)?.[1] ?? '?';
  return {
    cpu: `${cpus()[0]?.model ?? '?'} × ${cpus().length}`,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    redis,
    date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
  };
}

/** Runs `op` with `inFlight` concurrent loops for `ms`; returns operations per second. */
export async function throughput(op, { inFlight = 64, ms = 5_000, warmupMs = 1_000 } = {}) {
  const runFor = async (duration) => {
    let count = 0;
    const end = performance.now() + duration;
    await Promise.all(
      Array.from({ length: inFlight }, async (_, worker) => {
        let i = worker;
        while (performance.now() < end) {
          await op(i);
          i += inFlight;
          count += 1;
        }
      }),
    );
    return count;
  };
  await runFor(warmupMs);
  const start = performance.now();
  const count = await runFor(ms);
  return count / ((performance.now() - start) / 1000);
}

export const fmt = (n, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const root = new URL('..', import.meta.url).pathname;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Drops and recreates `databaseUrl` (migrated) and seeds the demo into it, as `npm start` does. */
export async function freshDemoDatabase(databaseUrl) {
  const { default: pg } = await import('pg');
  const { migrate } = await import('../scripts/db/migrate.mjs');
  const name = new URL(databaseUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: Object.assign(new URL(databaseUrl), { pathname: '/postgres' }).toString() });
  await admin.connect();
  await admin.query(`drop database if exists "${name.replaceAll('"', '""')}" with (force)`);
  await admin.end();
  await migrate(databaseUrl, () => undefined);
  await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['prisma/seed.ts'], { cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: 'ignore' });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the seed exited ${code}`))));
  });
}

/** `n` API processes of the built app on free ports; resolves once each answers /health 200. */
export async function startApiNodes(n, env) {
  const { freePort } = await import('../scripts/lib/redis-server.mjs');
  const nodes = [];
  for (let i = 0; i < n; i += 1) {
    const port = await freePort();
    const child = spawn(process.execPath, ['apps/api/dist/main.js'], {
      cwd: root,
      env: { ...process.env, API_PORT: String(port), API_HOST: '127.0.0.1', LOG_LEVEL: 'warn', NODE_ENV: 'production', ...env },
      stdio: 'ignore',
    });
    nodes.push({ url: `http://127.0.0.1:${port}`, child });
  }
  for (const node of nodes) {
    for (let i = 0; ; i += 1) {
      try {
        if ((await fetch(`${node.url}/health`)).status === 200) break;
      } catch {
        // starting
      }
      if (i > 300) throw new Error('an API node did not start');
      await sleep(100);
    }
  }
  return nodes;
}
