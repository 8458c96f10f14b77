#!/usr/bin/env node
// A second `npm start`: how long from the command until the API answers GET /health, and until the banner (API,
// dashboard and worker all answering), with the load average of the machine at each start. Its own PostgreSQL and
// redis-server, state in a temporary folder, free ports: one start to set it all up (not counted), then
// BENCH_STARTS (5) timed ones, each stopped with a Ctrl-C to its process group once the banner is out.
// Run: `npm run build && node bench/npm-start.mjs [--markdown]` (the builds must be in Nx's cache).
import { spawn } from 'node:child_process';
import { mkdtempSync, chmodSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../scripts/lib/redis-server.mjs';
import { fmt, machine } from './lib.mjs';

const STARTS = Number(process.env.BENCH_STARTS ?? 5);
const root = join(import.meta.dirname, '..');
const state = mkdtempSync(join(tmpdir(), 'tollgate-bench-start-'));
chmodSync(state, 0o755); // as root, PostgreSQL's own user must reach its data
const ports = { API_PORT: await freePort(), DASHBOARD_PORT: await freePort(), METRICS_PORT: await freePort(), WORKER_HEALTH_PORT: await freePort() };

async function start() {
  const load = loadavg()[0];
  const started = performance.now();
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', TOLLGATE_POSTGRES: 'embedded', TOLLGATE_REDIS: 'own', TOLLGATE_STATE_DIR: state, ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])) },
  });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  let health = null;
  while (child.exitCode === null && !output.includes('Ctrl-C stops everything.')) {
    if (health === null && (await fetch(`http://127.0.0.1:${ports.API_PORT}/health`).then((r) => r.ok, () => false))) health = performance.now() - started;
    await new Promise((r) => setTimeout(r, 100));
  }
  const banner = performance.now() - started;
  if (child.exitCode !== null) throw new Error(`npm start exited:\n${output.slice(-2000)}`);
  await new Promise((resolve) => {
    child.once('exit', resolve);
    process.kill(-child.pid, 'SIGINT');
  });
  return { load, health: health ?? banner, banner };
}

try {
  await start();
  const runs = [];
  for (let i = 0; i < STARTS; i += 1) runs.push(await start());
  const m = machine();
  if (process.argv.includes('--markdown')) {
    console.log(`${m.cpu}, ${m.memoryGiB} GiB, Node ${m.node}, ${m.date}\n`);
    console.log('| start | load (1 min) | to /health | to the banner |\n|---|---|---|---|');
    runs.forEach((r, i) => console.log(`| ${i + 1} | ${fmt(r.load, 1)} | ${fmt(r.health / 1000, 1)} s | ${fmt(r.banner / 1000, 1)} s |`));
  } else console.log(JSON.stringify({ machine: m, runs }, null, 2));
} finally {
  rmSync(state, { recursive: true, force: true });
}
