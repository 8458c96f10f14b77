#!/usr/bin/env node
// What waiting for a replica costs (a policy's `replicaAck`: the script, then `WAIT 1 <timeout>` in one pipeline on a
// connection of its own): `RedisEngine.consume()` of 3 limits, 64 in flight, 50 tenants × 200 subjects, on a primary of
// this run's own with one replica on the same machine, with and without `replicaAck`, interleaved rounds.
// Run: `npm run build && node bench/replica-ack.mjs [--markdown]`. Env: BENCH_SECONDS (3), BENCH_ROUNDS (6),
// BENCH_ACK_TIMEOUT_MS (20), BENCH_ACK_CONNECTIONS (4: the waiting calls' connections, as REPLICA_ACK_CONNECTIONS).
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { Redis } from 'ioredis';
import { startRedisServer } from '../scripts/lib/redis-server.mjs';
import { fmt, machine, percentile } from './lib.mjs';

const require = createRequire(import.meta.url);
const { RedisEngine, prepareRules } = require('@tollgate/limiter');

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 6);
const timeoutMs = Number(process.env.BENCH_ACK_TIMEOUT_MS ?? 20);
const IN_FLIGHT = 64;

const primaryServer = await startRedisServer('tollgate-bench-primary');
const replicaServer = await startRedisServer('tollgate-bench-replica');
const primary = new Redis(primaryServer.url);
const connections = Number(process.env.BENCH_ACK_CONNECTIONS ?? 4);
const waiting = Array.from({ length: connections }, () => new Redis(primaryServer.url));
const replica = new Redis(replicaServer.url);
await replica.replicaof('127.0.0.1', primaryServer.port);
for (let i = 0; !(await replica.info('replication')).includes('master_link_status:up'); i += 1) {
  if (i > 200) throw new Error('the replica did not sync');
  await new Promise((resolve) => setTimeout(resolve, 50));
}

const rules = prepareRules([
  { name: 'second', algorithm: 'token_bucket', limit: 1_000_000, windowMs: 1_000 },
  { name: 'minute', algorithm: 'fixed_window', limit: 1_000_000, windowMs: 60_000 },
  { name: 'daily', algorithm: 'fixed_window', limit: 100_000_000, windowMs: 86_400_000 },
]);
const engine = new RedisEngine(primary, { replicaAck: { clients: waiting, replicas: 1, timeoutMs }, deadlineMs: 1_000 });

/** Decisions/s and each decision's latency (ms) over `seconds`, after a second of warm-up; `failed`: not acknowledged. */
async function measure(replicaAck) {
  const run = async (ms, times) => {
    let count = 0;
    let failed = 0;
    const end = performance.now() + ms;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async (_, worker) => {
        for (let i = worker; performance.now() < end; i += IN_FLIGHT) {
          const started = performance.now();
          try {
            await engine.consume({ tenantId: `t${i % 50}`, subject: `s${i % 200}`, cost: 1, rules, ...(replicaAck ? { replicaAck } : {}) });
          } catch (err) {
            failed += 1;
            err.answered?.(false);
          }
          times?.push(performance.now() - started);
          count += 1;
        }
      }),
    );
    return { count, failed };
  };
  await run(1_000);
  const times = [];
  const start = performance.now();
  const { count, failed } = await run(seconds * 1_000, times);
  return { perSecond: count / ((performance.now() - start) / 1_000), p50: percentile(times, 50), p99: percentile(times, 99), failed };
}

const loadBefore = loadavg()[0];
const results = [];
for (let round = 0; round < rounds; round += 1) {
  const order = round % 2 === 0 ? [false, true] : [true, false];
  const r = {};
  for (const ack of order) r[ack ? 'ack' : 'plain'] = await measure(ack);
  results.push(r);
}
const loadAfter = loadavg()[0];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const of = (mode, field) => median(results.map((r) => r[mode][field]));
const out = {
  machine: machine(),
  seconds,
  rounds,
  timeoutMs,
  loadBefore,
  loadAfter,
  plain: { perSecond: of('plain', 'perSecond'), p50: of('plain', 'p50'), p99: of('plain', 'p99') },
  ack: { perSecond: of('ack', 'perSecond'), p50: of('ack', 'p50'), p99: of('ack', 'p99'), failed: results.reduce((n, r) => n + r.ack.failed, 0) },
  ratios: results.map((r) => r.ack.perSecond / r.plain.perSecond),
};
if (process.argv.includes('--markdown')) {
  console.log(`| decisions | decisions/s | p50 ms | p99 ms |
|---|---:|---:|---:|
| answered at once | ${fmt(out.plain.perSecond)} | ${fmt(out.plain.p50, 2)} | ${fmt(out.plain.p99, 2)} |
| waiting for 1 replica (\`WAIT 1 ${timeoutMs}\`, ${connections} connections) | ${fmt(out.ack.perSecond)} | ${fmt(out.ack.p50, 2)} | ${fmt(out.ack.p99, 2)} |

Waiting ÷ at once per round: ${out.ratios.map((x) => fmt(x, 2)).join(', ')}; not acknowledged in time: ${out.ack.failed}; load average ${fmt(loadBefore, 1)} before, ${fmt(loadAfter, 1)} after.`);
} else {
  console.log(JSON.stringify(out, null, 2));
}
for (const client of [primary, ...waiting, replica]) client.disconnect();
await Promise.all([replicaServer.stop(), primaryServer.stop()]);
