#!/usr/bin/env node
// What a Redis Sentinel failover costs the enforcement API (docs/reliability.md#redis-sentinel). Each round: a primary,
// a replica and 3 sentinels of the bench's own (test/support/redis-sentinel.ts, down-after 1 s), 2 API processes of the
// built app and the worker given only REDIS_SENTINELS / REDIS_SENTINEL_MASTER, production timings (deadline 50 ms,
// breaker 5 failures / 1 s), DEFAULT_FAILURE_MODE=local with LOCAL_FAILOVER_NODES=2. Steady load: LANES concurrent
// loops over both nodes, each check of the demo tenant sent as soon as the last one answered. A warm-up (2 s, then 2 s
// measured) gives the rate; the demo's minute limit is then set to what 5 s of that rate use, so that the primary,
// SIGKILLed 3 s into a fresh minute with charges in flight and nothing handed over, dies with the limit partly used,
// and the promoted replica runs it out: what it lets through beyond the limit is the charges it never received.
// Measured per round:
//   - the gap: answers decided by the failure mode (degraded) from the kill on, their latency, and how long after the
//     kill the last one came (answers degraded before the kill, by the 50 ms deadline on a busy machine, apart);
//   - the time from the kill until the sentinels name the replica, and until every node decides on Redis again;
//   - over-admission after promotion: what Redis allowed in the window beyond LIMIT (the charges the replica had not
//     received when the primary died), and what the failure mode allowed meanwhile (local: up to LIMIT ÷ 2 per node);
//   - usage counts lost: answers in the window minus the decisions Postgres's minute holds once the worker rolled it up.
// Run: `npm run build && node bench/failover-sentinel.mjs [--markdown]` (BENCH_ROUNDS, default 3; LANES, default 8). Uses the database BENCH_DATABASE_URL (default tollgate_bench_failover, recreated).
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { replicaOf, startSentinel } from '../test/support/redis-sentinel.ts';
import { fmt, freshDemoDatabase, machine, operatorToken, percentile, startApiNodes } from './lib.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const LANES = Number(process.env.LANES ?? 8);
const NODES = 2;
const KILL_AFTER_MS = 3_000;
/** Load goes on this long after every node is back on Redis. */
const AFTER_MS = 6_000;
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/tollgate_bench_failover';
const SERVICE_KEY = 'tg_test_DEMO_ONLY_service_key_not_for_production';
const root = new URL('..', import.meta.url).pathname;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const ENV = {
  DATABASE_URL: databaseUrl,
  DEFAULT_FAILURE_MODE: 'local',
  LOCAL_FAILOVER_NODES: String(NODES),
  USAGE_FLUSH_MS: '500',
  USAGE_GRACE_S: '2',
  USAGE_ROLLUP_EVERY_MS: '1000',
  USAGE_LIVE_EVERY_MS: '1000',
};

async function until(probe, timeoutMs = 60_000) {
  const start = performance.now();
  while (!(await probe().catch(() => false))) {
    if (performance.now() - start > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await sleep(20);
  }
}

/** The built worker; its log (warnings and errors) in `log`, a file. */
function startWorker(env, log) {
  const out = openSync(log, 'w');
  const child = spawn(process.execPath, ['apps/worker/dist/main.js'], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', NODE_ENV: 'production', WORKER_HEALTH_PORT: '', ...env },
    stdio: ['ignore', out, out],
  });
  return { stop: () => new Promise((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', resolve), child.kill('SIGTERM')))) };
}

await freshDemoDatabase(databaseUrl);
const db = new pg.Client({ connectionString: databaseUrl });
await db.connect();
const { rows: [acme] } = await db.query(`select id from tenants where slug = 'acme'`);
const rounds = [];
for (let round = 0; round < ROUNDS; round += 1) {
  const sentinel = await startSentinel({ sentinels: 3 });
  const env = { ...ENV, ...sentinel.env };
  const nodes = await startApiNodes(NODES, env);
  const workerLog = join(tmpdir(), `tollgate-failover-worker-${round + 1}.log`);
  const worker = startWorker(env, workerLog);
  try {
    // Far enough from the next minute for the warm-up and the limit change; the warm-up's checks count in this one.
    if (Date.now() % 60_000 > 45_000) await sleep(60_500 - (Date.now() % 60_000));
    const warmUp = performance.now() + 2_000;
    await steadyLoad(nodes, () => performance.now() > warmUp);
    const measured = performance.now() + 2_000;
    const ratePerS = (await steadyLoad(nodes, () => performance.now() > measured)).length / 2;
    const limit = Math.round(ratePerS * 5);
    await setLimits(nodes, limit);
    // The round starts a second into a minute and ends well within it: one window of the limit, one minute of usage.
    await sleep(61_000 - (Date.now() % 60_000));
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    rounds.push({ ...(await failover(sentinel, nodes, minute, limit)), limit });
    await sleep(Math.max(0, minute + 60_000 - Date.now()) + 3_500);
    // Rolled up: the minute's rows written after it closed (the live writes before are rewritten then).
    await until(async () => (await usageOf(minute)) >= rounds.at(-1).answers, 90_000).catch(() => console.error(`round ${round + 1}: the minute's usage fell short; the worker's log: ${workerLog}`));
    // The worker rolls the closed minute up; a count that holds still for 5 s is its final one.
    let last = -1;
    for (let still = 0; still < 5; ) {
      const now = await usageOf(minute);
      still = now === last ? still + 1 : 0;
      last = now;
      await sleep(1_000);
    }
    rounds.at(-1).counted = last;
  } finally {
    await worker.stop();
    for (const node of nodes) node.child.kill('SIGTERM');
    await sentinel.stop();
  }
}
await db.end();

async function usageOf(minute) {
  const { rows } = await db.query(`select coalesce(sum(decisions), 0)::int as n from usage_minute where tenant_id = $1 and bucket = to_timestamp($2 / 1000.0)`, [acme.id, minute]);
  return rows[0].n;
}

/** The demo's starter plan: `limit` a minute, and a day that does not run out; resolves once both nodes enforce it. */
async function setLimits(nodes, limit) {
  const auth = { authorization: `Bearer ${await operatorToken(nodes[0].url)}`, 'content-type': 'application/json' };
  const plans = await (await fetch(`${nodes[0].url}/v1/admin/plans?q=starter`, { headers: auth })).json();
  const starter = plans.items.find((p) => p.slug === 'starter');
  for (const [name, value] of [['minute', limit], ['daily', 100_000_000]]) {
    const res = await fetch(`${nodes[0].url}/v1/admin/plans/${starter.id}/limits/${starter.limits.find((l) => l.name === name).id}`, { method: 'PATCH', headers: auth, body: JSON.stringify({ limit: value }) });
    if (res.status !== 200) throw new Error(`the limit change answered ${res.status}`);
  }
  const { version } = await (await fetch(`${nodes[0].url}/v1/admin/rule-sets/current`, { headers: auth })).json();
  for (const node of nodes) await until(async () => (await (await fetch(`${node.url}/health`)).json()).ruleVersion >= version);
}

/**
 * LANES loops of checks over the nodes until `done()`; `onAnswer` sees each answer as it comes. Resolves with every
 * answer: node, start, latency, status, allowed, degraded.
 */
async function steadyLoad(nodes, done, onAnswer = () => undefined) {
  const answers = [];
  await Promise.all(
    Array.from({ length: LANES }, async (_, lane) => {
      for (let i = lane; !done(); i += LANES) {
        const node = i % NODES;
        const start = performance.now();
        let status = 0;
        let body = {};
        try {
          const res = await fetch(`${nodes[node].url}/v1/check`, {
            method: 'POST',
            headers: { authorization: `Bearer ${SERVICE_KEY}`, 'content-type': 'application/json' },
            body: JSON.stringify({ tenant: 'acme', endpoint: 'GET /v1/items' }),
          });
          status = res.status;
          body = await res.json();
        } catch {
          // counted as an error (status 0)
        }
        const a = { node, at: start, ms: performance.now() - start, status, allowed: body.allowed === true, degraded: body.degraded === true };
        answers.push(a);
        onAnswer(a);
      }
    }),
  );
  return answers;
}

async function failover(sentinel, nodes, minute, limit) {
  const replica = await replicaOf(sentinel);
  let killedAt = Infinity;
  let promotedAt = Infinity;
  const backAt = new Map();
  let stopAt = Infinity;
  const running = steadyLoad(nodes, () => performance.now() > stopAt, (a) => {
    if (a.at > killedAt && a.status === 200 && !a.degraded && !backAt.has(a.node)) backAt.set(a.node, a.at);
  });
  await sleep(KILL_AFTER_MS);
  sentinel.killPrimary();
  killedAt = performance.now();
  await sentinel.waitForPromotion(replica, 60_000);
  promotedAt = performance.now();
  await until(async () => backAt.size === NODES, 60_000);
  await sleep(AFTER_MS);
  stopAt = performance.now();
  const answers = (await running).filter((a) => a.at < stopAt);
  if (Date.now() >= minute + 60_000) throw new Error('the round outlasted its minute');

  const degraded = answers.filter((a) => a.degraded && a.at >= killedAt);
  const redisAllowed = answers.filter((a) => a.allowed && !a.degraded && a.status === 200).length;
  const beforeKill = answers.filter((a) => a.at < killedAt);
  return {
    answers: answers.length,
    errors: answers.filter((a) => a.status !== 200).length,
    ratePerS: beforeKill.length / (KILL_AFTER_MS / 1000),
    degraded: degraded.length,
    degradedAllowed: degraded.filter((a) => a.allowed).length,
    degradedBeforeKill: answers.filter((a) => a.degraded && a.at < killedAt).length,
    gapMs: degraded.length ? Math.max(...degraded.map((a) => a.at + a.ms)) - killedAt : 0,
    degradedP50: degraded.length ? percentile(degraded.map((a) => a.ms), 50) : 0,
    degradedP99: degraded.length ? percentile(degraded.map((a) => a.ms), 99) : 0,
    degradedMax: degraded.length ? Math.max(...degraded.map((a) => a.ms)) : 0,
    promotedMs: promotedAt - killedAt,
    backMs: Math.max(...backAt.values()) - killedAt,
    redisAllowed,
    overAdmitted: redisAllowed - limit,
    usedAtKill: beforeKill.filter((a) => a.allowed && !a.degraded).length,
  };
}

const m = machine();
const table = [
  '| round | checks (rate before the kill) | errors | degraded from the kill (allowed) | last degraded after the kill | their latency p50 / p99 / max | sentinels name the replica | every node on Redis again | limit used at the kill | Redis allowed − limit | usage lost |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rounds.map(
    (r, i) =>
      `| ${i + 1} | ${fmt(r.answers)} (${fmt(r.ratePerS)}/s) | ${r.errors} | ${fmt(r.degraded)} (${fmt(r.degradedAllowed)}) | ${fmt(r.gapMs)} ms | ${fmt(r.degradedP50, 1)} / ${fmt(r.degradedP99, 1)} / ${fmt(r.degradedMax, 1)} ms | ${fmt(r.promotedMs)} ms | ${fmt(r.backMs)} ms | ${fmt(r.usedAtKill)} of ${fmt(r.limit)} | ${r.overAdmitted < 0 ? `not reached (${fmt(r.redisAllowed)})` : fmt(r.overAdmitted)} | ${fmt(r.answers - r.counted)} |`,
  ),
];
if (process.argv.includes('--markdown')) {
  console.error(JSON.stringify({ machine: m, lanes: LANES, rounds }, null, 2));
  console.log(`Command: \`npm run build && node bench/failover-sentinel.mjs --markdown\` (BENCH_ROUNDS=${ROUNDS}, LANES=${LANES}). ${m.date}, ${m.cpu}, Node ${m.node}, Redis ${m.redis}.\n`);
  console.log(table.join('\n'));
} else {
  console.log(JSON.stringify({ machine: m, lanes: LANES, rounds }, null, 2));
}
