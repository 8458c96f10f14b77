#!/usr/bin/env node
// What a Redis Cluster failover and a slot migration cost the enforcement API (docs/reliability.md#failures-stay-on-their-node),
// as bench/failover-sentinel.mjs measures Sentinel's. Each round and scenario: a 6-node cluster of the bench's own
// (test/support/redis-cluster.ts: 3 primaries, a replica each, cluster-node-timeout 2000, cluster-require-full-coverage
// no), 2 API processes of the built app and the worker given REDIS_CLUSTER_NODES, production timings (deadline 50 ms,
// breaker 5 failures / 1 s), failure mode `local` with LOCAL_FAILOVER_NODES=2. Three tenants of the demo's starter plan,
// one on each primary, checked in turn by LANES loops over both nodes through a policy of the plan (`GET /v1/items`); a
// warm-up gives the rate, and the plan's minute limit is set to what 5 s of it use for one tenant. 3 s into a fresh
// minute the event hits the tenant on the primary that does not hold the rule set (the victim):
//   - kill: its primary SIGKILLed with charges in flight, nothing handed over; its replica takes over;
//   - kill-wait: the same, the policy waiting for a replica (`replicaAck`: each check's writes acknowledged by WAIT 1);
//   - move: its slot moved to another primary while it serves (SETSLOT IMPORTING / MIGRATING, MIGRATE 25 keys at a
//     time, 3,000 other keys in the slot, the tenant's in the middle), as `redis-cli --cluster reshard` does.
// Measured per round: the victim's answers decided by the failure mode from the event on (degraded), their latency and
// the last one's end; the time until the replica is promoted or the slot has moved, and until every node decides the
// victim on Redis again; the other primaries' tenants' degraded answers from the event on (0: each primary has a
// breaker of its own); what Redis allowed the victim beyond the limit (over-admission); usage counts lost (the answers
// minus the decisions Postgres's minute holds once the worker rolled it up).
// Run: `npm run build && node bench/failover-cluster.mjs [--markdown]` (BENCH_ROUNDS, default 2; LANES, default 8;
// BENCH_SCENARIOS, default kill,kill-wait,move). Uses the database BENCH_DATABASE_URL (default
// tollgate_bench_failover_cluster, recreated).
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { startCluster } from '../test/support/redis-cluster.ts';
import { costCells, eventCost, failoverEnv, load1, measuredRate, roomInMinute, setEndpointPolicy, setLimits, settledUsage, sleep, startWorker, steadyLoad, until } from './failover-lib.mjs';
import { fmt, freshDemoDatabase, machine, operatorToken, startApiNodes } from './lib.mjs';

const require = createRequire(import.meta.url);
const { tenantKeyPrefix, tenantTag } = require('@tollgate/limiter');
const { ruleSetKeys } = require('@tollgate/rule-store');

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const LANES = Number(process.env.LANES ?? 8);
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? 'kill,kill-wait,move').split(',');
const NODES = 2;
const EVENT_AFTER_MS = 3_000;
/** Load goes on this long after the replica took over (or the slot moved) and every node is back on Redis. */
const AFTER_MS = 6_000;
/** How long to wait for every node to decide the victim on Redis again after the promotion. */
const BACK_WITHIN_MS = 10_000;
/** Other keys in the victim's slot: MIGRATE moves them in batches, the victim's keys in the middle. */
const OTHER_KEYS = 3_000;
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/tollgate_bench_failover_cluster';
const ENV = { DATABASE_URL: databaseUrl, ...failoverEnv(NODES) };
for (const s of SCENARIOS) if (!['kill', 'kill-wait', 'move'].includes(s)) throw new Error(`unknown scenario ${s}`);

const loadBefore = load1();
await freshDemoDatabase(databaseUrl);
const db = new pg.Client({ connectionString: databaseUrl });
await db.connect();
/** Tenants of the starter plan, enough for one on each primary (a tenant's slot is its id's hash tag's). */
const candidates = (await db.query(`select id, slug from tenants where slug = 'acme'`)).rows;
/** A service key for every tenant (the demo's is acme's alone). */
let serviceKey;
const rounds = [];
for (let round = 0; round < ROUNDS; round += 1) {
  for (const scenario of SCENARIOS) {
    const cluster = await startCluster({ replicas: 1, nodeTimeoutMs: 2_000, requireFullCoverage: false });
    const env = { ...ENV, REDIS_CLUSTER_NODES: cluster.nodes.map((n) => `${n.host}:${n.port}`).join(',') };
    const nodes = [];
    const workerLog = join(tmpdir(), `tollgate-failover-cluster-worker-${round + 1}-${scenario}.log`);
    let worker;
    try {
      nodes.push(...(await startApiNodes(NODES, env)));
      worker = startWorker(env, workerLog);
      if (candidates.length === 1) candidates.push(...(await createTenants(nodes, 20)));
      const { victim, others, victimPort, targetPort } = await tenantsOf(cluster);
      const load = { lanes: LANES, tenants: [victim, ...others].map((t) => t.slug), key: serviceKey };
      await setEndpointPolicy(nodes, scenario === 'kill-wait');
      if (scenario === 'move') await fillSlot(victimPort, victim);
      await roomInMinute(15_000);
      const limit = Math.round(((await measuredRate(nodes, load)) / load.tenants.length) * 5);
      await setLimits(nodes, limit);
      // The round starts a second into a minute and ends well within it: one window of the limit, one minute of usage.
      await sleep(61_000 - (Date.now() % 60_000));
      const minute = Math.floor(Date.now() / 60_000) * 60_000;
      const r = { scenario, limit, ...(await event(scenario, cluster, nodes, load, { victim, victimPort, targetPort, minute, limit })) };
      r.counted = await settledUsage(db, [victim, ...others].map((t) => t.id), minute, r.answers, workerLog);
      rounds.push(r);
      console.error(JSON.stringify(r));
    } finally {
      await worker?.stop();
      for (const node of nodes) node.child.kill('SIGTERM');
      await cluster.stop();
    }
  }
}
await db.end();

/**
 * `n` tenants of the starter plan and a service key for every tenant (`serviceKey`), through the admin API (each one a
 * rule change every node enforces).
 */
async function createTenants(nodes, n) {
  const auth = { authorization: `Bearer ${await operatorToken(nodes[0].url)}`, 'content-type': 'application/json' };
  const keyRes = await fetch(`${nodes[0].url}/v1/admin/keys`, { method: 'POST', headers: auth, body: JSON.stringify({ kind: 'service', name: 'failover bench' }) });
  if (!keyRes.ok) throw new Error(`creating a service key answered ${keyRes.status}: ${await keyRes.text()}`);
  serviceKey = (await keyRes.json()).key;
  const { rows: [starter] } = await db.query(`select id from plans where slug = 'starter'`);
  const created = [];
  for (let i = 1; i <= n; i += 1) {
    const res = await fetch(`${nodes[0].url}/v1/admin/tenants`, { method: 'POST', headers: auth, body: JSON.stringify({ slug: `bench-cluster-${i}`, name: `Bench ${i}`, planId: starter.id }) });
    if (!res.ok) throw new Error(`creating a tenant answered ${res.status}: ${await res.text()}`);
    const { tenant } = await res.json();
    created.push({ id: tenant.id, slug: tenant.slug });
  }
  return created;
}

/**
 * One tenant on each primary: the victim's is not the primary of the rule set (whose reads the nodes go on with), and
 * a slot moves to the primary of another (`targetPort`).
 */
async function tenantsOf(cluster) {
  const rulesPort = await cluster.primaryOf(ruleSetKeys.ruleSet);
  const byPrimary = new Map();
  for (const tenant of candidates) {
    const port = await cluster.primaryOf(tenantKeyPrefix(tenant.id));
    if (!byPrimary.has(port)) byPrimary.set(port, tenant);
    if (byPrimary.size === 3) break;
  }
  if (byPrimary.size < 3) throw new Error('no tenant on some primary');
  const victimPort = [...byPrimary.keys()].find((port) => port !== rulesPort);
  const targetPort = [...byPrimary.keys()].find((port) => port !== victimPort);
  return { victim: byPrimary.get(victimPort), others: [...byPrimary].filter(([port]) => port !== victimPort).map(([, t]) => t), victimPort, targetPort };
}

/** OTHER_KEYS keys in the victim's slot, for the migration to move around the victim's own. */
async function fillSlot(port, victim) {
  const redis = new Redis({ host: '127.0.0.1', port });
  const pipeline = redis.pipeline();
  for (let i = 0; i < OTHER_KEYS; i += 1) pipeline.set(`bench-other:{${tenantTag(victim.id)}}:${i}`, 'x');
  await pipeline.exec();
  redis.disconnect();
}

async function event(scenario, cluster, nodes, load, { victim, victimPort, targetPort, minute, limit }) {
  let eventAt = Infinity;
  const backAt = new Map();
  let stopAt = Infinity;
  const running = steadyLoad(nodes, load, () => performance.now() > stopAt, (a) => {
    if (a.tenant === victim.slug && a.at > eventAt && a.status === 200 && !a.degraded && !backAt.has(a.node)) backAt.set(a.node, a.at);
  });
  await sleep(EVENT_AFTER_MS);
  const prefix = tenantKeyPrefix(victim.id);
  let moveError;
  eventAt = performance.now();
  if (scenario === 'move') {
    const asked = new Redis({ host: '127.0.0.1', port: targetPort });
    const slot = Number(await asked.cluster('KEYSLOT', prefix));
    asked.disconnect();
    const mine = (key) => key.startsWith(prefix);
    moveError = await cluster.moveSlot(slot, victimPort, targetPort, {
      order: (keys) => {
        const others = keys.filter((k) => !mine(k));
        const half = Math.floor(others.length / 2);
        return [...others.slice(0, half), ...keys.filter(mine), ...others.slice(half)];
      },
    });
  } else {
    cluster.kill(victimPort);
    await cluster.waitForFailover(prefix, victimPort, 60_000);
  }
  const doneAt = performance.now();
  if (scenario !== 'move') await until(async () => backAt.size === NODES, BACK_WITHIN_MS).catch(() => undefined);
  await sleep(AFTER_MS);
  stopAt = performance.now();
  const answers = (await running).filter((a) => a.at < stopAt);
  if (Date.now() >= minute + 60_000) throw new Error('the round outlasted its minute');
  const cost = eventCost(answers, eventAt, limit, (a) => a.tenant === victim.slug);
  // Moved: the victim is on Redis again when its last degraded answer came (at once when none did).
  const backMs = scenario === 'move' ? cost.gapMs : backAt.size === NODES ? Math.max(...backAt.values()) - eventAt : null;
  return {
    answers: answers.length,
    errors: answers.filter((a) => a.status !== 200).length,
    errorStatuses: [...new Set(answers.filter((a) => a.status !== 200).map((a) => a.status))],
    ratePerS: answers.filter((a) => a.at < eventAt).length / (EVENT_AFTER_MS / 1000),
    ...cost,
    doneMs: doneAt - eventAt,
    backMs,
    othersDegraded: answers.filter((a) => a.tenant !== victim.slug && a.degraded && a.at >= eventAt).length,
    othersDegradedBefore: answers.filter((a) => a.tenant !== victim.slug && a.degraded && a.at < eventAt).length,
    ...(moveError ? { moveError } : {}),
  };
}

const m = machine();
const what = { kill: 'primary killed', 'kill-wait': 'primary killed, WAIT 1', move: 'slot moved' };
const table = [
  '| scenario | round | checks (rate before the event) | errors | victim degraded from the event (allowed) | last degraded after the event | their latency p50 / p99 / max | replica promoted / slot moved | every node on Redis again | other primaries\' tenants degraded | limit used at the event | Redis allowed − limit | usage lost |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rounds.map((r, i) => {
    const c = costCells(r, r.limit);
    const back = r.backMs === null ? `not within ${fmt(BACK_WITHIN_MS / 1000)} s` : `${fmt(r.backMs)} ms`;
    const done = r.moveError ? `failed: ${r.moveError}` : `${fmt(r.doneMs)} ms`;
    return `| ${what[r.scenario]} | ${Math.floor(i / SCENARIOS.length) + 1} | ${fmt(r.answers)} (${fmt(r.ratePerS)}/s) | ${r.errors} | ${c.degraded} | ${c.gap} | ${c.latency} | ${done} | ${back} | ${fmt(r.othersDegraded)} | ${c.used} | ${c.over} | ${fmt(r.answers - r.counted)} |`;
  }),
];
if (process.argv.includes('--markdown')) {
  console.error(JSON.stringify({ machine: m, lanes: LANES, rounds }, null, 2));
  console.log(`Command: \`npm run build && node bench/failover-cluster.mjs --markdown\` (BENCH_ROUNDS=${ROUNDS}, LANES=${LANES}). ${m.date}, ${m.cpu}, Node ${m.node}, Redis ${m.redis}, load average ${fmt(loadBefore, 1)} before, ${fmt(load1(), 1)} after.\n`);
  console.log(table.join('\n'));
} else {
  console.log(JSON.stringify({ machine: m, lanes: LANES, rounds }, null, 2));
}
