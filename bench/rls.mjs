#!/usr/bin/env node
// Envoy's rate limit service against the HTTP check, in the same run: `ShouldRateLimit` with 3 descriptors (the
// tenant; the tenant, method and path; the tenant and a subject: what Envoy's ratelimit filter sends for 3 actions)
// and `POST /v1/check` of the same tenant, a plan of 3 limits (a token bucket per second, a fixed window per minute,
// a daily fixed window, out of reach: every decision an admission), each decided in one script call. One API process
// of the built app, its own Redis and database; the load from this process, 64 requests in flight on each protocol
// (gRPC: 64 unary calls on one HTTP/2 channel, as Envoy multiplexes; HTTP: 64 keep-alive connections), rounds
// interleaved; then gRPC alone at a fixed 5,000 requests/s for its latency. Both clients send bodies encoded once and
// read only as much of an answer as tells an admission (the load generator shares the machine with the API).
// Run: `npm run build && node bench/rls.mjs [--markdown]`. Env: BENCH_SECONDS (5), BENCH_ROUNDS (3), BENCH_RATE (5000),
// BENCH_DATABASE_URL (recreated; default tollgate_bench_rls), BENCH_API_NODE_OPTIONS (the API process's NODE_OPTIONS, e.g. --cpu-prof),
// BENCH_ONLY (`rls` or `http`: that target alone, for a profile of one path), BENCH_RLS_CHANNELS (1: HTTP/2 connections),
// BENCH_WARMUP_SECONDS (1: before each measured round).
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { readFileSync } from 'node:fs';
import { startRedisServer, freePort } from '../scripts/lib/redis-server.mjs';
import { fmt, freshDemoDatabase, machine, percentile, startApiNodes } from './lib.mjs';

const require = createRequire(import.meta.url);
const grpc = require('@grpc/grpc-js');
const { rateLimitServiceDefinition } = require('../apps/api/dist/modules/check/rls/rls-server.js');

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const rate = Number(process.env.BENCH_RATE ?? 5_000);
const warmupMs = Number(process.env.BENCH_WARMUP_SECONDS ?? 1) * 1000;
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/tollgate_bench_rls';
const IN_FLIGHT = 64;
const CHANNELS = Number(process.env.BENCH_RLS_CHANNELS ?? 1);
const ONLY = process.env.BENCH_ONLY; // `rls` or `http`: that target alone (a CPU profile of one path)
const SUBJECTS = 1_000;
const BIG = 1_000_000_000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const redis = await startRedisServer('tollgate-bench-rls');
await freshDemoDatabase(databaseUrl);
const grpcPort = await freePort();
const [api] = await startApiNodes(1, { DATABASE_URL: databaseUrl, REDIS_URL: redis.url, GRPC_PORT: String(grpcPort), GRPC_HOST: '127.0.0.1', ...(process.env.BENCH_API_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_API_NODE_OPTIONS } : {}) });
process.once('exit', () => api.child.kill('SIGTERM'));

async function json(res) {
  const body = await res.json();
  if (!res.ok) throw new Error(`${res.status} ${res.url}: ${JSON.stringify(body)}`);
  return body;
}
const post = (path, body, headers = {}) => fetch(`${api.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }).then(json);
const { token } = await post('/v1/auth/login', { email: 'admin@tollgate.local', password: 'tollgate-demo' });
const auth = { authorization: `Bearer ${token}` };
const limits = [
  { name: 'second', algorithm: 'token_bucket', windowS: 1, limit: 1_000_000, burst: 1_000_000 },
  { name: 'minute', algorithm: 'fixed_window', windowS: 60, limit: BIG },
  { name: 'daily', algorithm: 'fixed_window', windowS: 86_400, limit: BIG },
];
const { plan } = await post('/v1/admin/plans', { slug: 'bench-three', name: 'bench-three', limits }, auth);
await post('/v1/admin/tenants', { slug: 'bench-three', name: 'bench-three', planId: plan.id }, auth);
const { key, ruleVersion } = await post('/v1/admin/keys', { kind: 'service', name: 'rls bench', tenants: ['bench-three'] }, auth);
while ((await json(await fetch(`${api.url}/health`))).ruleVersion < ruleVersion) await sleep(50);

// ---- the two clients ----------------------------------------------------------------------------------------
const definition = rateLimitServiceDefinition();
const Client = grpc.makeGenericClientConstructor(definition, 'RateLimitService');
const channels = Array.from({ length: CHANNELS }, () => new Client(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 }));
const metadata = new grpc.Metadata();
metadata.set('authorization', `Bearer ${key}`);
const tenant = { key: 'tenant', value: 'bench-three' };
const rlsRequests = Array.from({ length: SUBJECTS }, (_, i) => ({
  domain: 'edge',
  descriptors: [
    { entries: [tenant] },
    { entries: [tenant, { key: 'method', value: 'GET' }, { key: 'path', value: '/v1/items' }] },
    { entries: [tenant, { key: 'generic_key', value: `user-${i}` }] },
  ],
}));
// Encoded once, as the HTTP bodies below are serialized once; an answer is read as far as its first field, as the HTTP
// answer is only searched: the load generator shares the machine with the API, and its own cost is not the API's.
const { requestSerialize, responseDeserialize, path: rlsPath } = definition.ShouldRateLimit;
const rlsBodies = rlsRequests.map((r) => requestSerialize(r));
const same = (b) => b;
/**
 * An admission decided on Redis: `RateLimitResponse.overall_code` (field 1, varint) = OK (1) in the answer's first two
 * bytes (protobuf writes fields in order), and no `degraded` in its dynamic metadata (as the HTTP answer is searched).
 */
const answeredOk = (b) => b.length > 1 && b[0] === 0x08 && b[1] === 0x01 && !b.includes('degraded');
/** One ShouldRateLimit; throws unless it is OK (an admission). */
const rls = (i) =>
  new Promise((resolve, reject) =>
    channels[i % CHANNELS].makeUnaryRequest(rlsPath, same, same, rlsBodies[i % SUBJECTS], metadata, (err, res) =>
      err ? reject(err) : answeredOk(res) ? resolve() : reject(new Error(`answered ${JSON.stringify(responseDeserialize(res))}`)),
    ),
  );

const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
const { hostname, port } = new URL(api.url);
const httpBodies = Array.from({ length: SUBJECTS }, (_, i) => JSON.stringify({ tenant: 'bench-three', endpoint: 'GET /v1/items', subject: `user-${i}` }));
/** One POST /v1/check; throws unless it is an admission decided on Redis. */
const http = (i) =>
  new Promise((resolve, reject) => {
    const body = httpBodies[i % SUBJECTS];
    const req = request({ agent, hostname, port, path: '/v1/check', method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${key}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => (res.statusCode === 200 && text.includes('"allowed":true') && !text.includes('"degraded"') ? resolve() : reject(new Error(`${res.statusCode} ${text.slice(0, 200)}`))));
    });
    req.on('error', reject);
    req.end(body);
  });

// ---- measuring ---------------------------------------------------------------------------------------------
/** The API process's CPU time (ms): user + system from /proc. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** `op` kept IN_FLIGHT deep for `seconds` after BENCH_WARMUP_SECONDS (1) of warm-up: decisions/s, latency percentiles, server CPU µs each. */
async function closedLoop(op) {
  const run = async (ms, times) => {
    let count = 0;
    const end = performance.now() + ms;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async (_, worker) => {
        for (let i = worker; performance.now() < end; i += IN_FLIGHT) {
          const started = performance.now();
          await op(i);
          times?.push(performance.now() - started);
          count += 1;
        }
      }),
    );
    return count;
  };
  await run(warmupMs);
  const times = [];
  const cpuBefore = cpuMs(api.child.pid);
  const start = performance.now();
  const count = await run(seconds * 1_000, times);
  const elapsed = (performance.now() - start) / 1000;
  return { perSecond: count / elapsed, p50: percentile(times, 50), p99: percentile(times, 99), cpuUs: ((cpuMs(api.child.pid) - cpuBefore) * 1000) / count };
}

/** `op` started at `perSecond`, whatever the answers do (open loop): latency from the time each was due. */
async function openLoop(op, perSecond) {
  const times = [];
  const total = perSecond * seconds;
  const start = performance.now();
  const pending = [];
  for (let i = 0; i < total; i += 1) {
    const due = start + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    pending.push(op(i).then(() => times.push(performance.now() - due)));
  }
  await Promise.all(pending);
  return { offered: perSecond, achieved: total / ((performance.now() - start) / 1000), p50: percentile(times, 50), p99: percentile(times, 99) };
}

const loadBefore = loadavg()[0];
const perRound = [];
for (let round = 0; round < rounds; round += 1) {
  const r = {};
  for (const name of round % 2 === 0 ? ['rls', 'http'] : ['http', 'rls']) if (!ONLY || ONLY === name) r[name] = await closedLoop(name === 'rls' ? rls : http);
  perRound.push(r);
}
if (ONLY !== 'http') await openLoop(rls, rate / 5); // warm the paced path
const paced = ONLY === 'http' ? { offered: rate, achieved: NaN, p50: NaN, p99: NaN } : await openLoop(rls, rate);
const loadAfter = loadavg()[0];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const of = (name, field) => (perRound[0][name] ? median(perRound.map((r) => r[name][field])) : NaN);
const out = {
  machine: machine(),
  seconds,
  rounds,
  loadBefore,
  loadAfter,
  rls: { perSecond: of('rls', 'perSecond'), p50: of('rls', 'p50'), p99: of('rls', 'p99'), cpuUs: of('rls', 'cpuUs') },
  http: { perSecond: of('http', 'perSecond'), p50: of('http', 'p50'), p99: of('http', 'p99'), cpuUs: of('http', 'cpuUs') },
  ratios: perRound.map((r) => r.rls?.perSecond / r.http?.perSecond),
  cpuRatios: perRound.map((r) => r.rls?.cpuUs / r.http?.cpuUs),
  paced,
};
if (process.argv.includes('--markdown')) {
  const row = (label, x) => `| ${label} | ${fmt(x.perSecond)} | ${fmt(x.p50, 2)} | ${fmt(x.p99, 2)} | ${fmt(x.cpuUs, 1)} |`;
  console.log(`| target (64 in flight) | decisions/s | p50 ms | p99 ms | API CPU µs / decision |
|---|---:|---:|---:|---:|
${row('`ShouldRateLimit`, 3 descriptors (gRPC)', out.rls)}
${row('`POST /v1/check`, 3 limits (HTTP/1.1)', out.http)}

gRPC ÷ HTTP decisions/s per round: ${out.ratios.map((x) => fmt(x, 2)).join(', ')}; API CPU per decision: ${out.cpuRatios.map((x) => fmt(x, 2)).join(', ')}. At a fixed ${fmt(paced.offered)} ShouldRateLimit/s
(achieved ${fmt(paced.achieved)}/s): p50 ${fmt(paced.p50, 2)} ms, p99 ${fmt(paced.p99, 2)} ms. Load average ${fmt(loadBefore, 1)} before, ${fmt(loadAfter, 1)} after.`);
} else {
  console.log(JSON.stringify(out, null, 2));
}
for (const channel of channels) channel.close();
agent.destroy();
api.child.kill('SIGTERM');
await redis.stop();
process.exit(0);
