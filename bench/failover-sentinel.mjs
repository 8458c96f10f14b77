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
// `--replica-ack`: the checks go through a policy of the starter plan that waits for a replica (`replicaAck`, WAIT 1).
// Run: `npm run build && node bench/failover-sentinel.mjs [--markdown] [--replica-ack]` (BENCH_ROUNDS, default 3; LANES, default 8). Uses the database BENCH_DATABASE_URL (default tollgate_bench_failover, recreated).
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { replicaOf, startSentinel } from '../test/support/redis-sentinel.ts';
import { costCells, eventCost, failoverEnv, load1, measuredRate, roomInMinute, setEndpointPolicy, setLimits, settledUsage, sleep, startWorker, steadyLoad, until } from './failover-lib.mjs';
import { fmt, freshDemoDatabase, machine, startApiNodes } from './lib.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const LANES = Number(process.env.LANES ?? 8);
const REPLICA_ACK = process.argv.includes('--replica-ack');
const NODES = 2;
const KILL_AFTER_MS = 3_000;
/** Load goes on this long after every node is back on Redis. */
const AFTER_MS = 6_000;
/** With `--replica-ack`, how long to wait for every node on Redis again (the promoted replica has no replica of its own). */
const BACK_WITHIN_MS = REPLICA_ACK ? 10_000 : 60_000;
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/tollgate_bench_failover';
const LOAD = { lanes: LANES, tenants: ['acme'] };
const ENV = { DATABASE_URL: databaseUrl, ...failoverEnv(NODES) };

const loadBefore = load1();
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
    if (REPLICA_ACK) await setEndpointPolicy(nodes, true);
    // Far enough from the next minute for the warm-up and the limit change; the warm-up's checks count in this one.
    await roomInMinute(15_000);
    const limit = Math.round((await measuredRate(nodes, LOAD)) * 5);
    await setLimits(nodes, limit);
    // The round starts a second into a minute and ends well within it: one window of the limit, one minute of usage.
    await sleep(61_000 - (Date.now() % 60_000));
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    rounds.push({ ...(await failover(sentinel, nodes, minute, limit)), limit });
    // Rolled up: the minute's rows written after it closed (the live writes before are rewritten then).
    rounds.at(-1).counted = await settledUsage(db, [acme.id], minute, rounds.at(-1).answers, workerLog);
  } finally {
    await worker.stop();
    for (const node of nodes) node.child.kill('SIGTERM');
    await sentinel.stop();
  }
}
await db.end();

async function failover(sentinel, nodes, minute, limit) {
  const replica = await replicaOf(sentinel);
  let killedAt = Infinity;
  let promotedAt = Infinity;
  const backAt = new Map();
  let stopAt = Infinity;
  const running = steadyLoad(nodes, LOAD, () => performance.now() > stopAt, (a) => {
    if (a.at > killedAt && a.status === 200 && !a.degraded && !backAt.has(a.node)) backAt.set(a.node, a.at);
  });
  await sleep(KILL_AFTER_MS);
  sentinel.killPrimary();
  killedAt = performance.now();
  await sentinel.waitForPromotion(replica, 60_000);
  promotedAt = performance.now();
  await until(async () => backAt.size === NODES, BACK_WITHIN_MS).catch(() => undefined);
  await sleep(AFTER_MS);
  stopAt = performance.now();
  const answers = (await running).filter((a) => a.at < stopAt);
  if (Date.now() >= minute + 60_000) throw new Error('the round outlasted its minute');
  return {
    answers: answers.length,
    errors: answers.filter((a) => a.status !== 200).length,
    ratePerS: answers.filter((a) => a.at < killedAt).length / (KILL_AFTER_MS / 1000),
    ...eventCost(answers, killedAt, limit),
    promotedMs: promotedAt - killedAt,
    backMs: backAt.size === NODES ? Math.max(...backAt.values()) - killedAt : null,
  };
}

const m = machine();
const table = [
  '| round | checks (rate before the kill) | errors | degraded from the kill (allowed) | last degraded after the kill | their latency p50 / p99 / max | sentinels name the replica | every node on Redis again | limit used at the kill | Redis allowed − limit | usage lost |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rounds.map(
    (r, i) => {
      const c = costCells(r, r.limit);
      const back = r.backMs === null ? `not within ${fmt(BACK_WITHIN_MS / 1000)} s` : `${fmt(r.backMs)} ms`;
      return `| ${i + 1} | ${fmt(r.answers)} (${fmt(r.ratePerS)}/s) | ${r.errors} | ${c.degraded} | ${c.gap} | ${c.latency} | ${fmt(r.promotedMs)} ms | ${back} | ${c.used} | ${c.over} | ${fmt(r.answers - r.counted)} |`;
    },
  ),
];
if (process.argv.includes('--markdown')) {
  console.error(JSON.stringify({ machine: m, lanes: LANES, replicaAck: REPLICA_ACK, rounds }, null, 2));
  console.log(`Command: \`npm run build && node bench/failover-sentinel.mjs --markdown${REPLICA_ACK ? ' --replica-ack' : ''}\` (BENCH_ROUNDS=${ROUNDS}, LANES=${LANES}). ${m.date}, ${m.cpu}, Node ${m.node}, Redis ${m.redis}, load average ${fmt(loadBefore, 1)} before, ${fmt(load1(), 1)} after.\n`);
  console.log(table.join('\n'));
} else {
  console.log(JSON.stringify({ machine: m, lanes: LANES, replicaAck: REPLICA_ACK, rounds }, null, 2));
}
