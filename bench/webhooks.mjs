#!/usr/bin/env node
// Webhook delivery (docs/adr/0017-webhooks.md), two measures against one operator endpoint at a receiver of this
// process on 127.0.0.1 that answers 200 at once:
// 1. Throughput: BENCH_EVENTS (5,000) events published into the outbox (`publishEvents`, 500 to a transaction) while no
//    worker runs; then the built worker (WEBHOOK_CONCURRENCY = BENCH_CONCURRENCY, 10) is started and delivers the
//    backlog: deliveries a second from its first delivery to its last, and the worker's CPU time per delivery (user +
//    system of its process, from /proc, over the same span).
//    Baselines, in the same run: the same number of signed POSTs of the same bodies sent over kept-alive connections
//    from a process of their own (bench/apps/signed-posts.mjs), as the worker is one, BENCH_CONCURRENCY at a time, with
//    `fetch` and with node:http (the worker's client) — what the receiver and the loopback allow, with no outbox, claim
//    or log.
// 2. A burst, end to end: with the worker running and idle, BENCH_BURST (3,000) alert events published in bulk as alert
//    evaluation publishes them (`publishEvents`, 500 to a transaction); the time from the start of publishing to the
//    receiver having all of them.
// Run: `npx nx run-many -t build && node bench/webhooks.mjs [--markdown]`. Env: BENCH_EVENTS, BENCH_BURST,
// BENCH_CONCURRENCY, BENCH_CPU_PROFILE (a directory: the worker writes a V8 CPU profile there), BENCH_DATABASE_URL
// (dropped and recreated; default tollgate_bench_webhooks). Its own redis-server on a free port.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { startRedisServer } from '../scripts/lib/redis-server.mjs';
import { fmt, freshDatabase, machine } from './lib.mjs';

const require = createRequire(import.meta.url);
const { createPrismaClient } = require('@tollgate/db');
const { createEndpoint, parseEncryptionKeys, publishEvents, SecretBox } = require('@tollgate/webhooks');

const EVENTS = Number(process.env.BENCH_EVENTS ?? 5_000);
const BURST = Number(process.env.BENCH_BURST ?? 3_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);
const CHUNK = 500;
const root = new URL('..', import.meta.url).pathname;
const markdown = process.argv.includes('--markdown');
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/tollgate_bench_webhooks';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Clock ticks a second of /proc/<pid>/stat's times (Linux: 100). */
const TICKS = 100;
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

/** A receiver that answers 200 at once and notes when each request arrived. */
async function startReceiver() {
  const arrivals = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrivals.push(performance.now());
      res.writeHead(200).end('ok');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/hook`, arrivals, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** CPU time (ms, user + system) a process has used so far. */
function cpuMsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
}

const eventOf = (key, i) => ({ type: 'quota.threshold_crossed', tenantId: null, dedupKey: `${key}:${i}`, data: { bench: i, thresholds: [80] } });

/** Publishes `n` events in bulk, `CHUNK` to a transaction, as alert evaluation does. */
async function publish(prisma, key, n) {
  for (let i = 0; i < n; i += CHUNK) {
    const events = Array.from({ length: Math.min(CHUNK, n - i) }, (_, j) => eventOf(key, i + j));
    await prisma.$transaction((tx) => publishEvents(tx, events), { timeout: 120_000 });
  }
}

/** The same number of signed POSTs from a process of their own (bench/apps/signed-posts.mjs), CONCURRENCY at a time, with `client`. */
async function direct(client, url, secret, n) {
  const child = spawn(process.execPath, ['bench/apps/signed-posts.mjs'], {
    cwd: root,
    env: { ...process.env, POSTS_CLIENT: client, POSTS_URL: url, POSTS_SECRET: secret, POSTS_N: String(n), POSTS_CONCURRENCY: String(CONCURRENCY) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  const code = await new Promise((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`the direct sender exited ${code}`);
  const { ms, cpuMs } = JSON.parse(out);
  return { perS: (n / ms) * 1000, cpuMsPerRequest: cpuMs / n };
}

async function until(condition, what) {
  const deadline = Date.now() + 600_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} not within 10 minutes`);
    await sleep(2);
  }
}

await freshDatabase(databaseUrl);
const redis = await startRedisServer('tollgate-bench-webhooks');
const receiver = await startReceiver();
const prisma = createPrismaClient(databaseUrl, { poolSize: 4 });
let worker;
try {
  const box = new SecretBox(prisma, parseEncryptionKeys(''));
  const { secret } = await prisma.$transaction((tx) => createEndpoint(tx, box, { tenantId: null, url: receiver.url, description: 'bench', eventTypes: ['quota.threshold_crossed'] }));
  const publishStarted = performance.now();
  await publish(prisma, 'backlog', EVENTS);
  const publishMs = performance.now() - publishStarted;

  const baseline = await direct('fetch', receiver.url, secret, EVENTS);
  const baselineHttp = await direct('http', receiver.url, secret, EVENTS);
  receiver.arrivals.length = 0;

  // The worker: started now, its deliveries of the backlog timed from the first to the last.
  const loadBefore = load();
  const profileArgs = process.env.BENCH_CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`] : [];
  worker = spawn(process.execPath, [...profileArgs, 'apps/worker/dist/main.js'], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOWED_DESTINATIONS: '127.0.0.1',
      WEBHOOK_CONCURRENCY: String(CONCURRENCY),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await until(() => receiver.arrivals.length > 0 || worker.exitCode !== null, 'a first delivery');
  if (worker.exitCode !== null) throw new Error(`the worker exited ${worker.exitCode} (built? npx nx run worker:build)`);
  const cpuAtFirst = cpuMsOf(worker.pid);
  await until(() => receiver.arrivals.length >= EVENTS, `${EVENTS} deliveries`);
  const cpuAtLast = cpuMsOf(worker.pid);
  const spanMs = receiver.arrivals.at(-1) - receiver.arrivals[0];
  // The last outcomes are written just after their answers.
  let delivered = 0;
  for (let i = 0; i < 100 && delivered < EVENTS; i += 1) {
    delivered = await prisma.webhookDelivery.count({ where: { status: 'delivered' } });
    if (delivered < EVENTS) await sleep(100);
  }

  // The burst: the worker idle (it looks for due deliveries every second), 3,000 alert events published in bulk.
  await sleep(2_000);
  receiver.arrivals.length = 0;
  const loadBeforeBurst = load();
  const burstStarted = performance.now();
  await publish(prisma, 'burst', BURST);
  const burstPublishedMs = performance.now() - burstStarted;
  await until(() => receiver.arrivals.length >= BURST, `the burst's ${BURST} deliveries`);
  const burstMs = receiver.arrivals.at(-1) - burstStarted;

  const result = {
    machine: machine(),
    events: EVENTS,
    concurrency: CONCURRENCY,
    loadBefore,
    publish: { ms: publishMs, perS: (EVENTS / publishMs) * 1000 },
    worker: { perS: ((EVENTS - 1) / spanMs) * 1000, cpuMsPerDelivery: (cpuAtLast - cpuAtFirst) / (EVENTS - 1), delivered },
    direct: baseline,
    directHttp: baselineHttp,
    burst: { events: BURST, loadBefore: loadBeforeBurst, publishedMs: burstPublishedMs, lastArrivalMs: burstMs },
    loadAfter: load(),
  };
  if (!markdown) console.log(JSON.stringify(result, null, 2));
  else {
    const w = result.worker;
    console.log(`${fmt(EVENTS)} events published into the outbox in ${fmt(publishMs)} ms (${fmt(result.publish.perS)} a second); load average before the worker: ${loadBefore}.\n`);
    console.log('| | deliveries/s | CPU ms per delivery | vs direct |');
    console.log('|---|---:|---:|---:|');
    console.log(`| **worker** (outbox claim → signed POST → log), ${CONCURRENCY} at once | ${fmt(w.perS)} | ${fmt(w.cpuMsPerDelivery, 2)} | ${fmt(w.perS / baseline.perS, 2)}× |`);
    console.log(`| baseline: signed POSTs with \`fetch\` from a process of their own, ${CONCURRENCY} at once | ${fmt(baseline.perS)} | ${fmt(baseline.cpuMsPerRequest, 2)} | 1.00× |`);
    console.log(`| the same with node:http and a keep-alive Agent (the worker's client) | ${fmt(baselineHttp.perS)} | ${fmt(baselineHttp.cpuMsPerRequest, 2)} | ${fmt(baselineHttp.perS / baseline.perS, 2)}× |`);
    console.log(`\nWorker against the node:http baseline: ${fmt(w.perS / baselineHttp.perS, 2)}× the deliveries a second, ${fmt(w.cpuMsPerDelivery / baselineHttp.cpuMsPerRequest, 2)}× the CPU per delivery.`);
    console.log(`\nDelivered rows: ${fmt(delivered)} of ${fmt(EVENTS)}. Burst: ${fmt(BURST)} alert events published in ${fmt(burstPublishedMs)} ms, the last received ${fmt(burstMs)} ms after publishing began (load ${loadBeforeBurst} before it, ${result.loadAfter} after).`);
  }
} finally {
  worker?.kill('SIGTERM');
  await prisma.$disconnect();
  await receiver.close();
  await redis.stop();
}
