#!/usr/bin/env node
// Change-to-enforcement latency: 3 API processes (the built app), an operator changes a plan limit
// through the admin API, and we time from sending the write until every node reports the new rule set
// version in force (`GET /health` → ruleVersion; the hot path reads that same in-memory rule set).
// Run: `npm run build && node bench/propagation.mjs [--markdown]`. Uses database tollgate_bench (recreated)
// and a redis-server of its own on a free port.
import { startRedisServer } from '../scripts/lib/redis-server.mjs';
import { fmt, freshDemoDatabase, machine, startApiNodes } from './lib.mjs';

const CHANGES = Number(process.env.BENCH_CHANGES ?? 200);
const NODES = 3;
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/tollgate_bench';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

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

await freshDemoDatabase(databaseUrl);
const redis = await startRedisServer('tollgate-bench');
const nodes = await startApiNodes(NODES, { DATABASE_URL: databaseUrl, REDIS_URL: redis.url });
let latencies;
try {
  latencies = await measure(nodes);
} finally {
  for (const n of nodes) n.child.kill('SIGTERM');
  await redis.stop();
}
const result = { machine: machine(), changes: CHANGES, nodes: NODES, p50: pct(latencies, 50), p90: pct(latencies, 90), p99: pct(latencies, 99), max: latencies.at(-1) };
if (!process.argv.includes('--markdown')) console.log(JSON.stringify(result, null, 2));
else console.log(`## Change to enforcement across ${NODES} API nodes

Command: \`npm run build && node bench/propagation.mjs --markdown\` (BENCH_CHANGES=${CHANGES}). ${result.machine.date}.
${NODES} API processes of the built app, one Postgres, one Redis (a \`redis-server\` the bench starts). Each change is a \`PATCH\` of the \`starter\` plan's
\`minute\` limit through the admin API (sent to each node in turn); the time runs from sending the write until every
node reports the new rule set version in force. The write itself includes the transaction (change + audit + compile +
new version) and the push to Redis; the other nodes swap on the Redis announcement.

| changes | p50 | p90 | p99 | max |
|---:|---:|---:|---:|---:|
| ${CHANGES} | ${fmt(result.p50, 1)} ms | ${fmt(result.p90, 1)} ms | **${fmt(result.p99, 1)} ms** | ${fmt(result.max, 1)} ms |
`);
