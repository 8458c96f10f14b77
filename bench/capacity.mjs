#!/usr/bin/env node
// Capacity a deployment can be sized from (BENCHMARKS.md "Capacity", README "Running at scale"). Two parts:
// 1. `api`: the built API (`POST /v1/check`) under autocannon load (bench/lib.mjs `load`, as bench/enforcement.mjs),
//    against one redis-server of the run's own: decisions/s, the API nodes' CPU and Redis's CPU per decision (`INFO
//    cpu`, script calls from `INFO commandstats`), hence decisions/s per API core and per Redis primary (a Redis
//    primary runs commands on one thread), as they grow with (a) limits per check 1 / 3 / 6, (b) policies per plan
//    1 / 50 (the check's route matched against them), (c) tenants in the rule set (BENCH_TENANT_COUNTS, 10 / 1,000 /
//    100,000: inserted in bulk, then a rule set compiled over them; the compile, its publication until every node
//    enforces it, and the API nodes' memory are recorded; checks spread over at most BENCH_ACTIVE_TENANTS of them),
//    (d) API nodes 1 → 2 → 3 loaded at once (the connections split between them), against the same Redis.
// 2. `rollup`: the worker's rollup (`UsageRollup` → `PostgresUsageWriter`, the built libs) of closed minutes of
//    BENCH_ROLLUP_TENANTS tenants × 3 endpoint policies (written into Redis as the API counts them), each minute
//    into an hour that already holds BENCH_ROLLUP_HISTORY minutes of theirs: tenant-policy-minutes written per
//    second; the tenant count at which one minute's rollup takes a minute (extrapolated), and the same at the middle
//    count with `synchronous_commit = off` and with the usage tables `UNLOGGED`.
// Run: `npm run build && node bench/capacity.mjs [--markdown]`. Env: BENCH_PARTS (api,rollup), BENCH_SECONDS (5),
// BENCH_WARMUP_SECONDS (2), BENCH_ROUNDS (3), BENCH_TENANT_COUNTS (10,1000,100000), BENCH_ACTIVE_TENANTS (2000),
// BENCH_ROLLUP_TENANTS (2000,5000,12000), BENCH_ROLLUP_HISTORY (30), BENCH_DATABASE_URL (recreated), BENCH_PORTS
// (e.g. 40000-42999: the ports of the run's servers; default the kernel's pick), BENCH_JSON (a file: the results as
// JSON, written after each part).
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createRequire } from 'node:module';
import { Redis } from 'ioredis';
import pg from 'pg';
import { startRedisServer } from '../scripts/lib/redis-server.mjs';
import { BIG } from './apps/nest.mjs';
import {
  asLoadGenerator,
  benchPort,
  cpuMicros,
  fmt,
  freshDemoDatabase,
  launch,
  load,
  machine,
  median,
  redisCpuMicros,
  rssMiB,
  scriptCalls,
  seedTenants,
  stopLaunched,
  until,
} from './lib.mjs';
import { perCore, spread, xAtBudget } from './sizing.mjs';

await asLoadGenerator(import.meta.url);

const require = createRequire(import.meta.url);
const markdown = process.argv.includes('--markdown');
const parts = (process.env.BENCH_PARTS ?? 'api,rollup').split(',');
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const tenantCounts = (process.env.BENCH_TENANT_COUNTS ?? '10,1000,100000').split(',').map(Number);
const activeTenants = Number(process.env.BENCH_ACTIVE_TENANTS ?? 2000);
const rollupTenants = (process.env.BENCH_ROLLUP_TENANTS ?? '2000,5000,12000').split(',').map(Number);
const rollupHistory = Number(process.env.BENCH_ROLLUP_HISTORY ?? 30);
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/tollgate_bench_capacity';
const CONNECTIONS = 64;
const SUBJECTS = 16;
const NODES = 3;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const ownRedis = await startRedisServer('tollgate-bench-capacity', await benchPort());
const redis = new Redis(ownRedis.url);
let db = new pg.Client({ connectionString: databaseUrl });

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    void stopLaunched().finally(() => process.exit(130));
  });
}

async function json(res) {
  const body = await res.json();
  if (!res.ok) throw new Error(`${res.status} ${res.url}: ${JSON.stringify(body)}`);
  return body;
}

// ---- 1. the API ------------------------------------------------------------------------------------------------

async function startNodes() {
  const nodes = [];
  for (let i = 0; i < NODES; i += 1) {
    const port = await benchPort();
    const proc = launch(`api${i + 1}`, ['apps/api/dist/main.js'], {
      DATABASE_URL: databaseUrl,
      REDIS_URL: ownRedis.url,
      API_PORT: String(port),
      API_HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
    });
    nodes.push({ proc, url: `http://127.0.0.1:${port}` });
  }
  for (const n of nodes) await until(n.proc, async () => (await fetch(`${n.url}/health`)).status === 200, 'GET /health');
  return nodes;
}

/**
 * Until every node enforces `version` (its /health's `ruleVersion`, whatever its status: a node busy loading a large
 * rule set answers its health 503 meanwhile, Redis's ping late): ms waited, and how many health answers were not 200.
 */
async function inForce(nodes, version) {
  const started = performance.now();
  let unhealthy = 0;
  for (const n of nodes) {
    for (let i = 0; ; i += 1) {
      const res = await fetch(`${n.url}/health`).catch(() => null);
      if (res?.status !== 200) unhealthy += 1;
      const body = res ? await res.json().catch(() => ({})) : {};
      if (body.ruleVersion >= version) break;
      if (i > 6000) throw new Error(`${n.proc.name} did not load rule set version ${version} within 5 minutes`);
      await sleep(50);
    }
  }
  return { ms: performance.now() - started, unhealthy };
}

const limit = (name, windowS, algorithm = 'fixed_window') =>
  algorithm === 'token_bucket' ? { name, algorithm, windowS, limit: 1_000_000, burst: 1_000_000 } : { name, algorithm, windowS, limit: BIG };
const LIMITS = {
  1: [limit('minute', 60)],
  3: [limit('second', 1, 'token_bucket'), limit('minute', 60), limit('daily', 86_400)],
  6: [limit('second', 1, 'token_bucket'), limit('ten-s', 10, 'sliding_window'), limit('minute', 60), limit('hour', 3_600), limit('daily', 86_400), limit('week', 7 * 86_400)],
};

/**
 * Through the admin API: plans `cap-l1`, `cap-l3`, `cap-l6` (that many limits, out of reach), `cap-p1` and `cap-p50`
 * (the 3 limits and that many endpoint policies, one of them matching the checked route `GET /v1/items`, each with a
 * limit of its own), a tenant on each (the slug of its plan), and a service key for every tenant.
 */
async function createPlans(api) {
  const post = (path, body, headers = {}) => fetch(`${api}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }).then(json);
  const { token } = await post('/v1/auth/login', { email: 'admin@tollgate.local', password: 'tollgate-demo' });
  const auth = { authorization: `Bearer ${token}` };
  const plans = {};
  for (const [slug, limits] of [['cap-l1', LIMITS[1]], ['cap-l3', LIMITS[3]], ['cap-l6', LIMITS[6]], ['cap-p1', LIMITS[3]], ['cap-p50', LIMITS[3]]]) {
    const { plan } = await post('/v1/admin/plans', { slug, name: slug, limits }, auth);
    plans[slug] = plan.id;
    await post('/v1/admin/tenants', { slug, name: slug, planId: plan.id }, auth);
  }
  for (const [slug, count] of [['cap-p1', 1], ['cap-p50', 50]]) {
    for (let i = 0; i < count; i += 1) {
      // The matching policy in the middle of the others.
      const matching = i === Math.floor(count / 2);
      await post('/v1/admin/policies', { planId: plans[slug], name: matching ? 'items' : `route_${i}`, method: 'GET', pattern: matching ? '/v1/items' : `/v1/r${i}/*`, limits: [{ ...limit('route', 60) }] }, auth);
    }
  }
  const { key, ruleVersion } = await post('/v1/admin/keys', { kind: 'service', name: 'capacity bench' }, auth);
  return { key, ruleVersion, plans, auth, post };
}

const bodiesFor = (tenants) => tenants.flatMap((tenant) => Array.from({ length: Math.max(1, Math.floor(SUBJECTS / tenants.length)) }, (_, i) => JSON.stringify({ tenant, endpoint: 'GET /v1/items', subject: `user-${i}` })));

/**
 * One configuration under load, `rounds` times: the nodes of `nodes` loaded at once (the connections split between
 * them). Medians over the rounds of the decisions/s (summed over the nodes), of the nodes' CPU and Redis's CPU per
 * decision, and of the script calls per decision.
 */
async function measure(nodes, key, tenants) {
  const bodies = bodiesFor(tenants);
  const targets = nodes.map((n) => ({ id: n.proc.name, url: n.url, path: '/v1/check', key, bodies, proc: n.proc }));
  const runs = [];
  for (let round = 0; round < rounds; round += 1) {
    let reading;
    let before;
    // Read once, when the first node's window opens (the others' open within milliseconds of it).
    const opened = async () => {
      reading ??= (async () => ({ cpu: targets.map((t) => cpuMicros(t.proc.child.pid)), redisCpu: await redisCpuMicros(redis), calls: await scriptCalls(redis) }))();
      before = await reading;
    };
    const results = await Promise.all(targets.map((t) => load(t, { warmup: warmupSeconds, duration: seconds, connections: Math.floor(CONNECTIONS / targets.length), atWindow: opened })));
    const apiCpu = targets.reduce((sum, t, i) => sum + cpuMicros(t.proc.child.pid) - before.cpu[i], 0);
    const redisCpu = (await redisCpuMicros(redis)) - before.redisCpu;
    const calls = (await scriptCalls(redis)) - before.calls;
    // Counted, not fatal: an admission the API answered `degraded` (Redis did not decide within its deadline, on a
    // machine this busy), and answers that were errors or timed out (autocannon's 10 s). Neither is a decision.
    const errors = results.reduce((sum, x) => sum + x.r.non2xx + x.r.errors + x.r.timeouts, 0);
    const degraded = results.reduce((sum, x) => sum + x.r.mismatches, 0);
    const answers = results.reduce((sum, x) => sum + x.window.answers, 0);
    const windowS = median(results.map((x) => x.window.seconds));
    runs.push({
      decidedPerSecond: results.reduce((sum, x) => sum + x.window.decidedPerSecond, 0),
      p99: Math.max(...results.map((x) => x.window.p99)),
      apiCpuUs: apiCpu / answers,
      apiCores: apiCpu / 1e6 / windowS,
      redisCpuUs: redisCpu / answers,
      redisShare: redisCpu / 1e6 / windowS,
      callsPerDecision: calls / answers,
      degraded,
      errors,
    });
  }
  const keys = Object.keys(runs[0]);
  return { ...Object.fromEntries(keys.map((k) => [k, median(runs.map((r) => r[k]))])), rounds: runs.map((r) => r.decidedPerSecond) };
}

/**
 * A rule set over every tenant now in Postgres: compiled and committed in this process (no time limit), then in force
 * on every node (their publisher finds the new version within RULES_RECONCILE_MS, 2 s, and each node loads it); then
 * one change through the API, which compiles, commits and publishes within RULE_SET_TRANSACTION (a minute).
 */
async function publishAll(nodes, admin, prisma, stage) {
  const { commitRuleSetVersion } = require('@tollgate/rule-store');
  const compileStarted = performance.now();
  const { ruleSet } = await prisma.$transaction((tx) => commitRuleSetVersion(tx, 'capacity bench'), { maxWait: 10_000, timeout: 3_600_000 });
  const compileMs = performance.now() - compileStarted;
  const { ms: loadMs, unhealthy } = await inForce(nodes, ruleSet.version);
  const size = (await db.query(`select length(compiled::text) as chars from rule_set_versions where version = $1`, [ruleSet.version])).rows[0].chars;
  const started = performance.now();
  const res = await fetch(`${nodes[0].url}/v1/admin/tenants`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...admin.auth },
    body: JSON.stringify({ slug: `cap-publish-${stage}`, name: 'publish', planId: admin.plans['cap-l3'] }),
  });
  const answer = await res.json();
  const write = { ms: performance.now() - started, status: res.status, error: res.ok ? null : (answer.error?.code ?? String(res.status)) };
  if (res.ok) write.inForceMs = (await inForce(nodes, answer.ruleVersion)).ms;
  return { compileMs, loadMs, unhealthy, write, ruleSetMiB: Number(size) / 2 ** 20, rssMiB: nodes.map((n) => rssMiB(n.proc.child.pid)) };
}

async function apiPart() {
  await freshDemoDatabase(databaseUrl);
  await db.connect();
  const nodes = await startNodes();
  const admin = await createPlans(nodes[0].url);
  await inForce(nodes, admin.ruleVersion);
  const { createPrismaClient } = require('@tollgate/db');
  const prisma = createPrismaClient(databaseUrl, { poolSize: 4 });
  const one = [nodes[0]];
  // Every node once before the measured runs: the JIT's tiers, heaps grown to their working size.
  for (const n of nodes) await load({ id: n.proc.name, url: n.url, path: '/v1/check', key: admin.key, bodies: bodiesFor(['cap-l3']) }, { warmup: 5, duration: 1 });
  const out = { limits: {}, policies: {}, tenants: [], nodes: [] };
  try {
    for (const n of [1, 3, 6]) out.limits[n] = await measure(one, admin.key, [`cap-l${n}`]);
    for (const n of [1, 50]) out.policies[n] = await measure(one, admin.key, [`cap-p${n}`]);
    const planId = admin.plans['cap-l3'];
    let seeded = [];
    for (const count of tenantCounts) {
      const added = await seedTenants(db, count - seeded.length, { planId, slugPrefix: 'cap-t-', from: seeded.length + 1 });
      seeded = seeded.concat(added.map((t) => t.slug));
      const rssBefore = nodes.map((n) => rssMiB(n.proc.child.pid));
      const published = await publishAll(nodes, admin, prisma, count);
      const active = spread(seeded, activeTenants);
      const run = await measure(one, admin.key, active);
      out.tenants.push({ count, active: active.length, ...published, rssBefore, rssAfter: nodes.map((n) => rssMiB(n.proc.child.pid)), ...run });
      // Nodes 1 → 2 → 3 at the first count that gives every node checks of many tenants.
      if (out.nodes.length === 0 && (count >= 1000 || count === tenantCounts.at(-1))) {
        for (let k = 1; k <= NODES; k += 1) out.nodes.push({ nodes: k, tenants: count, ...(k === 1 ? run : await measure(nodes.slice(0, k), admin.key, active)) });
      }
    }
  } finally {
    await prisma.$disconnect();
  }
  return out;
}

// ---- 2. the rollup ---------------------------------------------------------------------------------------------

/** Counts one minute of `tenants` (3 policies each: allowed and denied) into Redis as the API does. */
async function countMinute(tenants, minute) {
  const { activeTenantsKey, countField, costField, usageKey, USAGE_KEY_TTL_S } = require('@tollgate/usage');
  for (let i = 0; i < tenants.length; i += 500) {
    const p = redis.pipeline();
    for (const t of tenants.slice(i, i + 500)) {
      const key = usageKey(t.id, minute);
      for (const policy of t.policies) {
        p.hincrby(key, countField(policy, 'allowed', ''), 7);
        p.hincrby(key, costField(policy, 'allowed', ''), 7);
        p.hincrby(key, countField(policy, 'denied', 'minute'), 1);
      }
      p.expire(key, USAGE_KEY_TTL_S, 'NX');
    }
    p.sadd(activeTenantsKey(minute), ...tenants.slice(i, i + 500).map((t) => t.id));
    await p.exec();
  }
}

const USAGE_TABLES = ['usage_minute', 'usage_hour', 'usage_day'];

/**
 * `n` new tenants; their earlier minutes of the hour in `usage_minute` (as the rollup wrote them); then closed minutes
 * counted into Redis and rolled up by `UsageRollup` one run each: seconds per minute rolled up (median of 3).
 */
async function rollupPoint(prisma, n, setting = 'default') {
  const { PostgresUsageWriter, UsageRollup, ROLLED_KEY } = require('@tollgate/usage');
  const tenants = await seedTenants(db, n);
  const [s] = await redis.time();
  // Minutes of the previous hour, late in it: closed well past any grace period.
  const hour = Math.floor(Number(s) / 3600) * 3600 - 3600;
  const first = hour + rollupHistory * 60;
  await db.query(
    `insert into usage_minute (bucket, tenant_id, policy_id, result, reason, decisions, cost)
     select to_timestamp(m), t.id, t.policy, r::"UsageResult", case when r = 'denied' then 'minute' else '' end, 7, 7
     from unnest($1::uuid[], $2::uuid[]) as t(id, policy)
     cross join generate_series($3::bigint, $4::bigint, 60) as m
     cross join unnest(array['allowed', 'denied']) as r`,
    [tenants.flatMap((t) => t.policies.map(() => t.id)), tenants.flatMap((t) => t.policies), hour, first - 60],
  );
  await db.query(`vacuum analyze usage_minute`);
  const writer = new PostgresUsageWriter(prisma);
  const times = [];
  for (let m = 0; m < 3; m += 1) {
    const minute = first + 60 * m;
    await countMinute(tenants, minute);
    await redis.set(ROLLED_KEY, String(minute - 60));
    const rollup = new UsageRollup(redis, writer, { graceS: 15, maxMinutesPerRun: 1 });
    const started = performance.now();
    const run = await rollup.run();
    times.push((performance.now() - started) / 1000);
    if (run.minutes !== 1 || run.rows !== n * 6) throw new Error(`the rollup wrote ${run.minutes} minutes, ${run.rows} rows (expected 1, ${n * 6})`);
  }
  const secondsPerMinute = median(times);
  return { tenants: n, setting, secondsPerMinute, tenantPolicyMinutesPerSecond: (n * 3) / secondsPerMinute, rowsPerSecond: (n * 6) / secondsPerMinute };
}

async function rollupPart() {
  const { createPrismaClient } = require('@tollgate/db');
  const { freshDatabase } = await import('./lib.mjs');
  const points = [];
  const fresh = async () => {
    await db.end().catch(() => undefined);
    await freshDatabase(databaseUrl);
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    await redis.flushdb();
  };
  const withPrisma = async (f) => {
    const prisma = createPrismaClient(databaseUrl, { poolSize: 4 });
    try {
      return await f(prisma);
    } finally {
      await prisma.$disconnect();
    }
  };
  for (const n of rollupTenants) {
    await fresh();
    points.push(await withPrisma((prisma) => rollupPoint(prisma, n)));
  }
  const middle = rollupTenants[Math.floor(rollupTenants.length / 2)];
  const name = new URL(databaseUrl).pathname.slice(1);
  // synchronous_commit for the database's new sessions (the writer's pool opens after this).
  await fresh();
  await db.query(`alter database "${name}" set synchronous_commit = off`);
  points.push(await withPrisma((prisma) => rollupPoint(prisma, middle, 'synchronous_commit = off')));
  await fresh();
  for (const t of USAGE_TABLES) await db.query(`alter table ${t} set unlogged`);
  points.push(await withPrisma((prisma) => rollupPoint(prisma, middle, 'usage_minute, usage_hour, usage_day UNLOGGED')));
  const base = points.filter((p) => p.setting === 'default');
  const ceiling = base.length >= 2 ? xAtBudget(base.map((p) => ({ x: p.tenants, y: p.secondsPerMinute })), 60) : null;
  // With the open minutes written too (the worker's default): they take at most a quarter of its time.
  const ceilingLive = base.length >= 2 ? xAtBudget(base.map((p) => ({ x: p.tenants, y: p.secondsPerMinute })), 45) : null;
  return { points, ceiling, ceilingLive, history: rollupHistory };
}

// ---- the run ---------------------------------------------------------------------------------------------------

const loadBefore = loadavg();
const results = { machine: machine(), seconds, warmupSeconds, rounds, loadBefore };
try {
  // BENCH_JSON: the results so far written there after each part (a long run that fails later keeps them).
  const keep = () => process.env.BENCH_JSON && writeFileSync(process.env.BENCH_JSON, JSON.stringify(results, null, 2));
  if (parts.includes('api')) results.api = await apiPart();
  keep();
  await stopLaunched();
  if (parts.includes('rollup')) results.rollup = await rollupPart();
  keep();
} finally {
  await stopLaunched();
  await db.end().catch(() => undefined);
  redis.disconnect();
  ownRedis.stop();
}
results.loadAfter = loadavg();

console.log(markdown ? report(results) : JSON.stringify(results, null, 2));

function report(r) {
  const load = (l) => l.map((x) => fmt(x, 2)).join(' / ');
  const lines = [
    `Command: \`npm run build && node bench/capacity.mjs --markdown\` (BENCH_SECONDS=${r.seconds}, warm-up ${r.warmupSeconds} s, ${r.rounds} rounds).`,
    `Machine: ${r.machine.cpu}, ${r.machine.memoryGiB} GiB, Node ${r.machine.node}, Redis ${r.machine.redis}, PostgreSQL on the same machine, ${r.machine.date}; load average (1/5/15 min) ${load(r.loadBefore)} before, ${load(r.loadAfter)} after.`,
    '',
  ];
  const a = r.api;
  if (a) {
    const row = (label, x) =>
      `| ${label} | ${fmt(x.decidedPerSecond)} | ${fmt(x.p99, 1)} | ${fmt(x.apiCpuUs)} | ${fmt(x.apiCores, 2)} | **${fmt(perCore(x.apiCpuUs))}** | ${fmt(x.redisCpuUs, 1)} | ${fmt(x.redisShare * 100)} % | **${fmt(perCore(x.redisCpuUs))}** | ${fmt(x.callsPerDecision, 2)} | ${fmt(x.degraded)} / ${fmt(x.errors)} |`;
    const head = `| configuration | decided /s | p99 ms | API CPU µs / decision | API cores busy | decisions /s per API core | Redis CPU µs / decision | Redis busy | decisions /s per Redis primary | script calls / decision | answers degraded / errors |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|`;
    lines.push(head);
    for (const [n, x] of Object.entries(a.limits)) lines.push(row(`1 node, 1 tenant, ${n} limit${n === '1' ? '' : 's'} a check`, x));
    for (const [n, x] of Object.entries(a.policies)) lines.push(row(`1 node, 1 tenant, 3 limits + ${n} endpoint polic${n === '1' ? 'y' : 'ies'} in the plan (1 matches)`, x));
    for (const t of a.tenants) lines.push(row(`1 node, ${fmt(t.count)} tenants in the rule set, checks over ${fmt(t.active)} of them, 3 limits`, t));
    for (const x of a.nodes) lines.push(row(`${x.nodes} API node${x.nodes === 1 ? '' : 's'} at once, ${fmt(x.tenants)} tenants, 3 limits`, x));
    lines.push('', '| tenants in the rule set | compiled and committed (read, compile, diff, write) | then in force on all 3 nodes (health answers not 200 meanwhile) | compiled rule set | a change through the API (compile + commit + publish) | then in force | API node RSS before → after (MiB) |', '|---:|---:|---:|---:|---:|---:|---|');
    for (const t of a.tenants) {
      const w = t.write;
      lines.push(`| ${fmt(t.count)} | ${fmt(t.compileMs)} ms | ${fmt(t.loadMs)} ms (${fmt(t.unhealthy)}) | ${fmt(t.ruleSetMiB, 1)} MiB | ${w.status === 201 || w.status === 200 ? `${fmt(w.ms)} ms` : `**failed** after ${fmt(w.ms)} ms (${w.status} ${w.error})`} | ${w.inForceMs === undefined ? '—' : `${fmt(w.inForceMs)} ms`} | ${t.rssBefore.map((x, i) => `${fmt(x)} → ${fmt(t.rssAfter[i])}`).join(', ')} |`);
    }
    lines.push('', `Decided/s per round: ${[...Object.entries(a.limits).map(([n, x]) => `${n} limits ${x.rounds.map((v) => fmt(v)).join('/')}`), ...a.nodes.map((x) => `${x.nodes} nodes ${x.rounds.map((v) => fmt(v)).join('/')}`)].join('; ')}.`, '');
  }
  const u = r.rollup;
  if (u) {
    lines.push(`Rollup: one closed minute of N tenants × 3 endpoint policies (6 rows a tenant), into an hour already holding ${u.history} minutes of theirs; median of 3 minutes.`, '');
    lines.push('| tenants | Postgres setting | s per minute rolled up | tenant-policy-minutes /s | rows /s |', '|---:|---|---:|---:|---:|');
    for (const p of u.points) lines.push(`| ${fmt(p.tenants)} | ${p.setting} | ${fmt(p.secondsPerMinute, 2)} | ${fmt(p.tenantPolicyMinutesPerSecond)} | ${fmt(p.rowsPerSecond)} |`);
    if (u.ceiling) lines.push('', `A minute's rollup takes a minute at about **${fmt(u.ceiling)} tenants** (45 s, leaving the open minutes' writes their quarter: ${fmt(u.ceilingLive)}), extrapolated linearly from the default rows.`);
  }
  return lines.join('\n');
}
