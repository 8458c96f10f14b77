#!/usr/bin/env node
// How long after something happens to Redis every API node enforces the newest committed rule set again
// (docs/adr/0008-who-keeps-the-rule-set-in-redis.md), with the production timings (poll 1 s, reconcile 2 s).
// 3 API processes of the built app on a redis-server of the bench's own. Each round of "restart":
//   Redis is killed, a tenant key is revoked through the admin API (committed; Redis is away), Redis is started
//   again empty on the same port; the time runs from Redis answering again until every node refuses the key.
// Each round of "flush": FLUSHALL; the time runs until Redis holds the rule set again (the nodes never stopped
// enforcing it from memory).
// Run: `npm run build && node bench/rule-set-recovery.mjs [--markdown]` (BENCH_ROUNDS, default 5). Uses database
// tollgate_bench (recreated).
import { Redis } from 'ioredis';
import { startRedisServer } from '../scripts/lib/redis-server.mjs';
import { fmt, freshDemoDatabase, machine, startApiNodes } from './lib.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const NODES = 3;
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/tollgate_bench';
const SERVICE_KEY = 'tg_test_DEMO_ONLY_service_key_not_for_production';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const json = async (url, init = {}) => {
  const res = await fetch(url, { ...init, headers: { ...(init.body ? { 'content-type': 'application/json' } : {}), ...init.headers } });
  return { status: res.status, body: await res.json() };
};

/** Milliseconds until `probe` is true (polled every 20 ms), or throws after 60 s. */
async function until(probe) {
  const start = performance.now();
  while (!(await probe().catch(() => false))) {
    if (performance.now() - start > 60_000) throw new Error('not within 60 s');
    await sleep(20);
  }
  return performance.now() - start;
}

await freshDemoDatabase(databaseUrl);
let redis = await startRedisServer('tollgate-bench');
const nodes = await startApiNodes(NODES, { DATABASE_URL: databaseUrl, REDIS_URL: redis.url });
const restart = [];
const flush = [];
try {
  const api = nodes[0].url;
  const { body: login } = await json(`${api}/v1/auth/login`, { method: 'POST', body: JSON.stringify({ email: 'admin@tollgate.local', password: 'tollgate-demo' }) });
  const admin = { authorization: `Bearer ${login.token}` };
  const { body: tenants } = await json(`${api}/v1/admin/tenants`, { headers: admin });
  const acme = tenants.items.find((t) => t.slug === 'acme');
  const check = (node, key) => json(`${node.url}/v1/check`, { method: 'POST', headers: { authorization: `Bearer ${SERVICE_KEY}` }, body: JSON.stringify({ key, endpoint: 'GET /v1/items' }) });
  const everyNode = (predicate) => async () => (await Promise.all(nodes.map(predicate))).every(Boolean);
  const refuses = (key) => everyNode(async (n) => (await check(n, key)).body.reason === 'key_invalid');
  const knows = (key) => everyNode(async (n) => (await check(n, key)).body.reason === undefined);

  for (let round = 0; round < ROUNDS; round += 1) {
    const { body: created } = await json(`${api}/v1/admin/keys`, { method: 'POST', headers: admin, body: JSON.stringify({ kind: 'tenant', name: `bench ${round}`, tenantId: acme.id }) });
    await until(knows(created.key));
    const port = redis.port;
    await redis.stop();
    const revoked = await json(`${nodes[round % NODES].url}/v1/admin/keys/${created.apiKey.id}/revoke`, { method: 'POST', headers: admin });
    if (revoked.status !== 200) throw new Error(`revoke answered ${revoked.status}`);
    redis = await startRedisServer('tollgate-bench', port);
    restart.push(await until(refuses(created.key)));

    const client = new Redis(redis.url);
    await client.flushall();
    flush.push(await until(async () => (await client.get('tg:{rules}:revision')) !== null));
    client.disconnect();
  }
} finally {
  for (const n of nodes) n.child.kill('SIGTERM');
  await redis.stop();
}

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const summary = (xs) => ({ min: sorted(xs)[0], median: sorted(xs)[Math.floor(xs.length / 2)], max: sorted(xs).at(-1) });
const result = { machine: machine(), nodes: NODES, rounds: ROUNDS, restart: summary(restart), flush: summary(flush) };
if (!process.argv.includes('--markdown')) console.log(JSON.stringify(result, null, 2));
else
  console.log(`## Rule set back in force after Redis restarts empty or is flushed

Command: \`npm run build && node bench/rule-set-recovery.mjs --markdown\` (BENCH_ROUNDS=${ROUNDS}). ${result.machine.date}, ${result.machine.cpu}.
${NODES} API processes of the built app with the default timings (\`RULES_POLL_MS\` 1000, \`RULES_RECONCILE_MS\` 2000), one
Postgres, a \`redis-server\` of the bench's own. **Restart**: Redis killed, a tenant key revoked through the admin API
meanwhile, Redis started again empty; from Redis answering until every node refuses the key. **Flush**: \`FLUSHALL\`;
until Redis holds the rule set again. Goal: every node enforces the newest committed version within 10 s.

| event | rounds | min | median | max |
|---|---:|---:|---:|---:|
| restart empty + key revoked meanwhile | ${ROUNDS} | ${fmt(result.restart.min)} ms | ${fmt(result.restart.median)} ms | **${fmt(result.restart.max)} ms** |
| FLUSHALL | ${ROUNDS} | ${fmt(result.flush.min)} ms | ${fmt(result.flush.median)} ms | **${fmt(result.flush.max)} ms** |
`);
