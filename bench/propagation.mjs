#!/usr/bin/env node
// Change-to-enforcement latency (issue 4): 3 API processes (the built app), an operator changes a plan limit
// through the admin API, and we time from sending the write until every node reports the new rule set
// version in force (`GET /health` → ruleVersion; the hot path reads that same in-memory rule set).
// Run: `npm run build && node bench/propagation.mjs [--markdown]`. Uses database tollgate_bench (recreated)
// and Redis database BENCH_PROPAGATION_REDIS_DB (default 8, flushed).
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { migrate } from '../scripts/db/migrate.mjs';
import { fmt, machine } from './lib.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CHANGES = Number(process.env.BENCH_CHANGES ?? 200);
const NODES = 3;
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/tollgate_bench';
const redisUrl = `redis://127.0.0.1:6379/${process.env.BENCH_PROPAGATION_REDIS_DB ?? 8}`;

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function prepare() {
  const name = new URL(databaseUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: Object.assign(new URL(databaseUrl), { pathname: '/postgres' }).toString() });
  await admin.connect();
  await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.end();
  await migrate(databaseUrl, () => undefined);
  const redis = new Redis(redisUrl);
  await redis.flushdb();
  redis.disconnect();
  await run(['prisma/seed.ts'], { DATABASE_URL: databaseUrl });
}

function run(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: 'ignore' });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited ${code}`))));
  });
}

async function startNodes() {
  const nodes = [];
  for (let i = 0; i < NODES; i += 1) {
    const port = await freePort();
    const child = spawn(process.execPath, ['apps/api/dist/main.js'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, API_PORT: String(port), API_HOST: '127.0.0.1', LOG_LEVEL: 'warn', NODE_ENV: 'production' },
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

const version = async (url) => (await (await fetch(`${url}/health`)).json()).ruleVersion;

async function measure(nodes) {
  const api = nodes[0].url;
  const login = await (await fetch(`${api}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@tollgate.local', password: 'tollgate-demo' }) })).json();
  const auth = { authorization: `Bearer ${login.token}` };
  const plans = await (await fetch(`${api}/v1/admin/plans`, { headers: auth })).json();
  const starter = plans.items.find((p) => p.slug === 'starter');
  const minute = starter.limits.find((l) => l.name === 'minute');
  const latencies = [];
  for (let i = 0; i < CHANGES; i += 1) {
    const started = performance.now();
    const target = nodes[i % NODES].url; // writes go to every node in turn
    const res = await fetch(`${target}/v1/admin/plans/${starter.id}/limits/${minute.id}`, {
      method: 'PATCH',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ limit: 1000 + i }),
    });
    const { ruleVersion } = await res.json();
    await Promise.all(nodes.map(async (n) => {
      while ((await version(n.url)) < ruleVersion) await sleep(1);
    }));
    latencies.push(performance.now() - started);
  }
  return latencies.sort((a, b) => a - b);
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

await prepare();
const nodes = await startNodes();
let latencies;
try {
  latencies = await measure(nodes);
} finally {
  for (const n of nodes) n.child.kill('SIGTERM');
}
const result = { machine: machine(), changes: CHANGES, nodes: NODES, p50: pct(latencies, 50), p90: pct(latencies, 90), p99: pct(latencies, 99), max: latencies.at(-1) };
if (!process.argv.includes('--markdown')) console.log(JSON.stringify(result, null, 2));
else console.log(`## Change to enforcement across ${NODES} API nodes (issue 4)

Command: \`npm run build && node bench/propagation.mjs --markdown\` (BENCH_CHANGES=${CHANGES}). ${result.machine.date}.
${NODES} API processes of the built app, one Postgres, one Redis. Each change is a \`PATCH\` of the \`starter\` plan's
\`minute\` limit through the admin API (sent to each node in turn); the time runs from sending the write until every
node reports the new rule set version in force. The write itself includes the transaction (change + audit + compile +
new version) and the push to Redis; the other nodes swap on the Redis announcement.

| changes | p50 | p90 | p99 | max |
|---:|---:|---:|---:|---:|
| ${CHANGES} | ${fmt(result.p50, 1)} ms | ${fmt(result.p90, 1)} ms | **${fmt(result.p99, 1)} ms** | ${fmt(result.max, 1)} ms |
`);
