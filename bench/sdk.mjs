#!/usr/bin/env node
// SDK benchmark: decisions per second of the SDK's local limiter (`LeasedLimiter`), which spends
// units leased over HTTP from a server answering the enforcement contract (`/v1/check/lease`, `/refund`,
// decided by the in-memory engine), against baselines measured in the same run: a bare `Map` increment and
// `MemoryEngine.consume()`. Run: `npm run build && node bench/sdk.mjs` (JSON) or `--markdown` (the
// BENCHMARKS.md section). BENCH_SECONDS (default 5) per figure.
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { setImmediate as turn } from 'node:timers/promises';
import { fmt, machine } from './lib.mjs';

const require = createRequire(import.meta.url);
const { MemoryEngine, prepareRules } = require('@tollgate/limiter');
const { LeasedLimiter, TollgateClient } = require('@tollgate/sdk');

const markdown = process.argv.includes('--markdown');
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const LEASE = 10_000;
const CHUNK = 1_000; // decisions between two turns of the event loop, as a busy server yields between requests
const rules = prepareRules([{ name: 'minute', algorithm: 'fixed_window', limit: 1_000_000_000, windowMs: 60_000 }]);

/** A minimal server of the lease and refund routes: counts calls, decides with the in-memory engine. */
async function startLeaseServer() {
  const engine = new MemoryEngine();
  const calls = { lease: 0, refund: 0 };
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = JSON.parse(Buffer.concat(chunks).toString());
    const request = { tenantId: body.tenant, subject: `${body.endpoint}|${body.subject ?? ''}`, rules };
    let answer;
    if (req.url === '/v1/check/lease') {
      calls.lease += 1;
      const { granted, decision } = await engine.lease({ ...request, max: body.max });
      answer = { allowed: decision.allowed, mode: 'enforce', retryAfterMs: decision.retryAfterMs, ruleVersion: 1, limits: [], headers: {}, granted };
    } else {
      calls.refund += 1;
      const decision = await engine.refund({ ...request, cost: body.cost });
      answer = { allowed: true, mode: 'enforce', retryAfterMs: decision.retryAfterMs, ruleVersion: 1, limits: [], headers: {} };
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, calls, close: () => new Promise((r) => server.close(r)) };
}

/** Runs `chunk()` (which makes CHUNK decisions) for `ms` after a warm-up, yielding between chunks; decisions/s. */
async function rate(chunk, ms = seconds * 1000) {
  const run = async (duration) => {
    let n = 0;
    const end = performance.now() + duration;
    while (performance.now() < end) {
      await chunk(n);
      n += CHUNK;
      await turn();
    }
    return n;
  };
  await run(1_000);
  const start = performance.now();
  const n = await run(ms);
  return n / ((performance.now() - start) / 1000);
}

const targetsOf = (count) => Array.from({ length: count }, (_, i) => ({ tenant: 'bench', endpoint: 'POST /v1/messages', subject: `user-${i}` }));

/**
 * The lease server runs in this process, on the event loop that the decision loop keeps busy: in the first second of
 * the 1,000-subject run ~1,000 targets lease at about the same time, and ~900 of those leases waited 0.3–0.65 s
 * (session 8); on a slow minute some passed the client's default 1 s timeout, which stopped the bench. The figure
 * here is decisions per second, not a lease's latency, so the client waits up to 10 s.
 */
const LEASE_TIMEOUT_MS = 10_000;

async function leased(server, subjects, mode) {
  const client = new TollgateClient({ baseUrl: server.url, serviceKey: 'bench', timeoutMs: LEASE_TIMEOUT_MS });
  const limiter = new LeasedLimiter({ client, leaseSize: LEASE, leaseTtlMs: 60_000 });
  const targets = targetsOf(subjects);
  let denied = 0;
  const leasesBefore = server.calls.lease;
  const sync = async (n) => {
    for (let i = 0; i < CHUNK; i += 1) {
      const target = targets[(n + i) % subjects];
      const d = limiter.tryTake(target) ?? (await limiter.take(target));
      if (!d.allowed) denied += 1;
    }
  };
  const awaited = async (n) => {
    for (let i = 0; i < CHUNK; i += 1) if (!(await limiter.take(targets[(n + i) % subjects])).allowed) denied += 1;
  };
  const perSecond = await rate(mode === 'sync' ? sync : awaited);
  const stats = limiter.stats();
  await limiter.close();
  if (denied) throw new Error(`${denied} denials: the limit is meant to be out of reach`);
  return { perSecond, leases: server.calls.lease - leasesBefore, decisionsPerLease: stats.spent / Math.max(1, stats.leases) };
}

async function baselines() {
  const map = new Map();
  const keys = targetsOf(1_000).map((t) => `${t.tenant}\n${t.endpoint}\n${t.subject}`);
  const mapIncrement = await rate(async (n) => {
    for (let i = 0; i < CHUNK; i += 1) {
      const k = keys[(n + i) % 1_000];
      map.set(k, (map.get(k) ?? 0) + 1);
    }
  });
  const engine = new MemoryEngine();
  const memoryEngine = await rate(async (n) => {
    for (let i = 0; i < CHUNK; i += 1) await engine.consume({ tenantId: 'bench', subject: `user-${(n + i) % 1_000}`, cost: 1, rules });
  });
  return { mapIncrement, memoryEngine };
}

const server = await startLeaseServer();
const results = {
  machine: machine(),
  loadAverageAtStart: loadavg()[0],
  baselines: await baselines(),
  leasedSync1: await leased(server, 1, 'sync'),
  leasedSync1000: await leased(server, 1_000, 'sync'),
  leasedAwait1: await leased(server, 1, 'await'),
};
await server.close();

if (!markdown) {
  console.log(JSON.stringify(results, null, 2));
} else {
  const r = results;
  const base = r.baselines.memoryEngine;
  const row = (name, v, extra = '') => `| ${name} | ${fmt(v)} | ${fmt(v / base, 2)}× | ${fmt(v / r.baselines.mapIncrement, 2)}× |${extra}`;
  const leaseNote = (x) => ` ${fmt(x.leases)} leases, ${fmt(x.decisionsPerLease)} decisions per lease |`;
  console.log(`## SDK local limiter

Command: \`npm run build && node bench/sdk.mjs --markdown\` (BENCH_SECONDS=${seconds}). Machine: ${r.machine.cpu},
${r.machine.memoryGiB} GiB, Node ${r.machine.node}, ${r.machine.date}, load average ${fmt(r.loadAverageAtStart, 1)} at the start (other
processes share the CPUs: compare the ratios, which are measured in the same run). One process: the SDK's \`LeasedLimiter\` leases
${fmt(LEASE)} units at a time over HTTP (\`TollgateClient\`, keep-alive) from a server in the same process that answers
\`/v1/check/lease\` and \`/v1/check/refund\` with the in-memory engine (limit out of reach, so every decision is an
admission); ${fmt(CHUNK)} decisions per turn of the event loop (the leases' answers are read between turns). Baselines in the
same run, over 1,000 keys: a bare \`Map\` get + set, and \`MemoryEngine.consume()\` of one fixed-window limit (awaited).

| what | decisions/s | vs MemoryEngine | vs Map increment | |
|---|---:|---:|---:|---|
${row('`Map` increment (the ceiling of any in-process counter)', r.baselines.mapIncrement, ' |')}
${row('`MemoryEngine.consume()`, 1 limit (baseline)', base, ' |')}
${row('**`LeasedLimiter.tryTake()`**, 1 subject', r.leasedSync1.perSecond, leaseNote(r.leasedSync1))}
${row('**`LeasedLimiter.tryTake()`**, 1,000 subjects', r.leasedSync1000.perSecond, leaseNote(r.leasedSync1000))}
${row('`await LeasedLimiter.take()`, 1 subject', r.leasedAwait1.perSecond, leaseNote(r.leasedAwait1))}

Goal: ≥ 1,000,000 leased decisions per second in process.
`);
}
