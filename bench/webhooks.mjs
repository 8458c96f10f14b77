#!/usr/bin/env node
// Webhook delivery throughput (docs/adr/0017-webhooks.md): BENCH_EVENTS (5,000) events published into the outbox
// (`publishEvent`, 500 to a transaction) for one operator endpoint at a receiver of this process on 127.0.0.1 that
// answers 200 at once; then the built worker (its defaults: WEBHOOK_CONCURRENCY 10, a dispatch every second) is
// started and delivers them: deliveries a second from its first delivery to its last, and the worker's CPU time per
// delivery (user + system of its process, from /proc, over the same span).
// Baseline, in the same run: the same number of signed POSTs of the same bodies sent straight from this process with
// `fetch`, 10 at a time (what the receiver and the loopback allow, with no outbox, queue or log).
// Run: `npx nx run-many -t build && node bench/webhooks.mjs [--markdown]`. Env: BENCH_EVENTS, BENCH_DATABASE_URL
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
const { createEndpoint, parseEncryptionKeys, publishEvent, SecretBox, signatureHeader } = require('@tollgate/webhooks');

const EVENTS = Number(process.env.BENCH_EVENTS ?? 5_000);
const CONCURRENCY = 10;
const root = new URL('..', import.meta.url).pathname;
const markdown = process.argv.includes('--markdown');
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/tollgate_bench_webhooks';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Clock ticks a second of /proc/<pid>/stat's times (Linux: 100). */
const TICKS = 100;


/** A receiver that answers 200 at once and notes when each request arrived (by `webhook-id`). */
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

const bodyOf = (i) => JSON.stringify({ type: 'quota.threshold_crossed', timestamp: new Date().toISOString(), data: { bench: i, thresholds: [80] } });

await freshDatabase(databaseUrl);
const redis = await startRedisServer('tollgate-bench-webhooks');
const receiver = await startReceiver();
const prisma = createPrismaClient(databaseUrl, { poolSize: 4 });
let worker;
try {
  const box = new SecretBox(prisma, parseEncryptionKeys(''));
  const { secret } = await prisma.$transaction((tx) => createEndpoint(tx, box, { tenantId: null, url: receiver.url, description: 'bench', eventTypes: ['quota.threshold_crossed'] }));
  const publishStarted = performance.now();
  for (let i = 0; i < EVENTS; i += 500) {
    await prisma.$transaction(async (tx) => {
      for (let j = i; j < Math.min(EVENTS, i + 500); j += 1) {
        await publishEvent(tx, { type: 'quota.threshold_crossed', tenantId: null, dedupKey: `bench:${j}`, data: { bench: j, thresholds: [80] } });
      }
    }, { timeout: 120_000 });
  }
  const publishMs = performance.now() - publishStarted;

  // Baseline: the same number of signed POSTs straight from here, CONCURRENCY at a time.
  const cpu0 = process.cpuUsage();
  const directStarted = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < EVENTS; i = next++) {
        const body = bodyOf(i);
        const id = `msg_direct${i}`;
        const at = Math.floor(Date.now() / 1000);
        const res = await fetch(receiver.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(at), 'webhook-signature': signatureHeader(id, at, body, [secret]) },
          body,
        });
        await res.text();
      }
    }),
  );
  const directMs = performance.now() - directStarted;
  const directCpu = process.cpuUsage(cpu0);
  receiver.arrivals.length = 0;

  // The worker: started now, its deliveries timed from the first to the last.
  const load = loadavg().map((l) => l.toFixed(2)).join(' ');
  worker = spawn(process.execPath, ['apps/worker/dist/main.js'], {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'production', DATABASE_URL: databaseUrl, REDIS_URL: redis.url, LOG_LEVEL: 'warn', WEBHOOK_ALLOWED_DESTINATIONS: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  while (receiver.arrivals.length === 0) {
    if (worker.exitCode !== null) throw new Error(`the worker exited ${worker.exitCode} (built? npx nx run worker:build)`);
    await sleep(5);
  }
  const cpuAtFirst = cpuMsOf(worker.pid);
  const deadline = Date.now() + 600_000;
  while (receiver.arrivals.length < EVENTS && Date.now() < deadline) await sleep(5);
  const cpuAtLast = cpuMsOf(worker.pid);
  if (receiver.arrivals.length < EVENTS) throw new Error(`only ${receiver.arrivals.length} of ${EVENTS} delivered within 10 minutes`);
  const spanMs = receiver.arrivals.at(-1) - receiver.arrivals[0];
  // The last attempts' rows commit just after their answers.
  let delivered = 0;
  for (let i = 0; i < 100 && delivered < EVENTS; i += 1) {
    delivered = await prisma.webhookDelivery.count({ where: { status: 'delivered' } });
    if (delivered < EVENTS) await sleep(100);
  }

  const result = {
    machine: machine(),
    events: EVENTS,
    loadBefore: load,
    publish: { ms: publishMs, perS: (EVENTS / publishMs) * 1000 },
    worker: { perS: ((EVENTS - 1) / spanMs) * 1000, cpuMsPerDelivery: (cpuAtLast - cpuAtFirst) / (EVENTS - 1), delivered },
    direct: { perS: (EVENTS / directMs) * 1000, cpuMsPerRequest: (directCpu.user + directCpu.system) / 1000 / EVENTS },
  };
  if (!markdown) console.log(JSON.stringify(result, null, 2));
  else {
    console.log(`${EVENTS} events published into the outbox in ${fmt(publishMs)} ms (${fmt(result.publish.perS)} a second); load average before the worker: ${load}.\n`);
    console.log('| | deliveries/s | CPU ms per delivery | vs direct |');
    console.log('|---|---:|---:|---:|');
    console.log(`| **worker** (outbox → dispatcher → queue → signed POST → log), ${CONCURRENCY} at once | ${fmt(result.worker.perS)} | ${fmt(result.worker.cpuMsPerDelivery, 2)} | ${fmt(result.worker.perS / result.direct.perS, 2)}× |`);
    console.log(`| baseline: signed POSTs straight from the bench, ${CONCURRENCY} at once | ${fmt(result.direct.perS)} | ${fmt(result.direct.cpuMsPerRequest, 2)} | 1.00× |`);
    console.log(`\nDelivered rows: ${fmt(delivered)} of ${fmt(EVENTS)}.`);
  }
} finally {
  worker?.kill('SIGTERM');
  await prisma.$disconnect();
  await receiver.close();
  await redis.stop();
}
