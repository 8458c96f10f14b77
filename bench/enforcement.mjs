#!/usr/bin/env node
// Enforcement API under HTTP load: Tollgate's built API (`POST /v1/check`, a tenant whose plan has 3
// limits, and one with 1 limit) against a bare Nest + Fastify route doing one EVALSHA (the cost floor) and the same
// endpoint on @nestjs/throttler and on rate-limiter-flexible (bench/apps/). Each server is its own process;
// autocannon runs in this one with 64 connections, the same bodies for every target, BENCH_ROUNDS rounds (the
// order reversed every other round), medians reported.
// Run: `npm run build && node bench/enforcement.mjs [--markdown] [--profile]`. Env: BENCH_SECONDS (10),
// BENCH_WARMUP_SECONDS (3, before each measured run), BENCH_INITIAL_WARMUP_SECONDS (10, each server once before the
// rounds), BENCH_ROUNDS (3), BENCH_DATABASE_URL (recreated), BENCH_REDIS_URL (default: a redis-server of the run's
// own on a free port; a database named here is flushed), BENCH_BASELINE (another checkout, built: its API is target
// `baseline`, and it and this build's are also loaded together unless BENCH_BASELINE_PAIRED=false:
// `BENCH_TARGETS=tollgate3,baseline`). `--profile` also takes a CPU profile of the API and of the bare app under the same load, afterwards
// (kept in BENCH_PROFILE_DIR when set).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { migrate } from '../scripts/db/migrate.mjs';
import { startRedisServer } from '../scripts/lib/redis-server.mjs';
import { BIG } from './apps/nest.mjs';
import { summarize } from './cpu-profile.mjs';
import {
  admitted,
  asLoadGenerator,
  benchPort as freePort,
  cpuMicros,
  failures,
  fmt,
  launch,
  load,
  LOAD_GENERATOR_FLAG,
  machine,
  median,
  redisCpuMicros,
  scriptCalls,
  stopLaunched as stopAll,
  until,
} from './lib.mjs';

// The load generator runs with small semi-spaces (`LOAD_GENERATOR_FLAG` in bench/lib.mjs says why).
await asLoadGenerator(import.meta.url);

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const markdown = process.argv.includes('--markdown');
const profiling = process.argv.includes('--profile');
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const initialWarmupSeconds = Number(process.env.BENCH_INITIAL_WARMUP_SECONDS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/tollgate_bench_enforcement';
const ownRedis = process.env.BENCH_REDIS_URL ? undefined : await startRedisServer('tollgate-bench');
const redisUrl = process.env.BENCH_REDIS_URL ?? ownRedis.url;
const baselineDir = process.env.BENCH_BASELINE;
// BENCH_BASELINE_PAIRED=false skips loading both builds together: a baseline from before a change of key layout
// charges keys this build reads too (ADR 0024's earlier-version counter), so the two cannot share tenants.
const pairedWithBaseline = process.env.BENCH_BASELINE_PAIRED !== 'false';
if (baselineDir && !existsSync(join(baselineDir, 'apps/api/dist/main.js'))) throw new Error(`BENCH_BASELINE=${baselineDir}: no apps/api/dist/main.js there (build it first)`);
const CONNECTIONS = 64;
const SUBJECTS = 16;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- processes ------------------------------------------------------------------------------------------

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    void stopAll().finally(() => process.exit(130));
  });
}

// ---- set-up -------------------------------------------------------------------------------------------------

function runNode(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c) => (err += c.toString()));
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited ${code}: ${err}`))));
  });
}

async function prepareStores(redis) {
  const name = new URL(databaseUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: Object.assign(new URL(databaseUrl), { pathname: '/postgres' }).toString() });
  await admin.connect();
  await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.end();
  await migrate(databaseUrl, () => undefined);
  await redis.flushdb();
  await runNode(['prisma/seed.ts'], { DATABASE_URL: databaseUrl }); // the operator login
}

/** The Tollgate API and the three small apps, each its own process on a free port. */
async function startServers(profileDir) {
  const profileArgs = (name) =>
    profileDir
      ? { args: ['--import', './bench/apps/cpu-profile.mjs'], env: { BENCH_CPU_PROFILE: join(profileDir, `${name}.cpuprofile`) }, ipc: true }
      : { args: [], env: {}, ipc: false };
  const start = async (name, script, env = {}) => {
    const port = await freePort();
    const p = profileArgs(name);
    const proc = launch(name, [...p.args, script], { ...env, ...p.env, PORT: String(port), REDIS_URL: redisUrl, NODE_ENV: 'production' }, p);
    return { proc, url: `http://127.0.0.1:${port}` };
  };
  const startApi = async (name, env = {}, cwd = root) => {
    const apiPort = await freePort();
    const p = name === 'api' ? profileArgs('api') : { args: [], env: {}, ipc: false };
    return {
      proc: launch(name, [...p.args, 'apps/api/dist/main.js'], {
        ...p.env,
        DATABASE_URL: databaseUrl,
        REDIS_URL: redisUrl,
        API_PORT: String(apiPort),
        API_HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        NODE_ENV: 'production',
        ...env,
      }, { ...p, cwd }),
      url: `http://127.0.0.1:${apiPort}`,
    };
  };
  const api = await startApi('api');
  // The same API with usage counting off: what counting every decision costs (same Redis, same tenants).
  const uncounted = await startApi('uncounted', { USAGE_COUNTING: 'false' });
  // BENCH_BASELINE: another built checkout's API on the same Redis and database, to compare two builds loaded together.
  const baseline = baselineDir ? await startApi('baseline', {}, baselineDir) : null;
  const servers = {
    api,
    uncounted,
    baseline,
    bare: await start('bare', 'bench/apps/bare-evalsha.mjs'),
    throttler: await start('throttler', 'bench/apps/throttler.mjs'),
    flexible: await start('flexible', 'bench/apps/rate-limiter-flexible.mjs'),
  };
  for (const a of [api, uncounted, ...(baseline ? [baseline] : [])]) await until(a.proc, async () => (await fetch(`${a.url}/health`)).status === 200, 'GET /health');
  for (const s of [servers.bare, servers.throttler, servers.flexible]) {
    await until(s.proc, async () => (await fetch(`${s.url}/v1/check`, { method: 'POST' })).status === 400, 'listening');
  }
  servers.start = start;
  return servers;
}

/** The HTTP floor (bench/apps/http-floor.mjs), answering what Tollgate answers `body` with, as a constant. */
async function startFloor(servers, api, key, body, name = 'floor', env = {}) {
  const res = await fetch(`${api}/v1/check`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body });
  const answer = await res.text();
  if (!res.ok || !admitted(answer)) throw new Error(`the floor's answer: ${res.status} ${answer}`);
  const headers = Object.fromEntries(['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit-policy', 'ratelimit'].filter((h) => res.headers.has(h)).map((h) => [h, res.headers.get(h)]));
  const floor = await servers.start(name, 'bench/apps/http-floor.mjs', { FLOOR_ANSWER: answer, FLOOR_HEADERS: JSON.stringify(headers), ...env });
  await until(floor.proc, async () => (await fetch(`${floor.url}/v1/check`, { method: 'POST' })).status === 400, 'listening');
  return floor;
}

async function json(res) {
  const body = await res.json();
  if (!res.ok) throw new Error(`${res.status} ${res.url}: ${JSON.stringify(body)}`);
  return body;
}

/**
 * Through the admin API: plan `bench-three` (a token bucket per second, a fixed window per minute, a daily fixed
 * window), plan `bench-one` (the per-minute window alone), a tenant on each, and a service key for both. Limits
 * are out of reach: every decision is an admission.
 */
async function createTenants(api) {
  const post = (path, body, headers = {}) => fetch(`${api}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }).then(json);
  const { token } = await post('/v1/auth/login', { email: 'admin@tollgate.local', password: 'tollgate-demo' });
  const auth = { authorization: `Bearer ${token}` };
  const second = { name: 'second', algorithm: 'token_bucket', windowS: 1, limit: 1_000_000, burst: 1_000_000 };
  const minute = { name: 'minute', algorithm: 'fixed_window', windowS: 60, limit: BIG };
  const daily = { name: 'daily', algorithm: 'fixed_window', windowS: 86_400, limit: BIG };
  for (const [slug, limits] of [['bench-three', [second, minute, daily]], ['bench-one', [minute]]]) {
    const { plan } = await post('/v1/admin/plans', { slug, name: slug, limits }, auth);
    await post('/v1/admin/tenants', { slug, name: slug, planId: plan.id }, auth);
  }
  const { key, ruleVersion } = await post('/v1/admin/keys', { kind: 'service', name: 'enforcement bench', tenants: ['bench-three', 'bench-one'] }, auth);
  while ((await json(await fetch(`${api}/health`))).ruleVersion < ruleVersion) await sleep(50);
  return key;
}

// ---- load ---------------------------------------------------------------------------------------------------

const bodies = (tenant) => Array.from({ length: SUBJECTS }, (_, i) => JSON.stringify({ tenant, endpoint: 'GET /v1/items', subject: `user-${i}` }));

/** The median of each of `keys` over `runs` (windows of `load`). */
const mediansOf = (runs, keys) => Object.fromEntries(keys.map((k) => [k, median(runs.map((x) => x[k]))]));

/** What Tollgate's daily window of a tenant has counted, read without charging (`/v1/check/peek`). */
async function dailyUsed(target) {
  for (let i = 0; ; i += 1) {
    const res = await fetch(`${target.url}/v1/check/peek`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${target.key}` },
      body: bodies(target.tenant)[0],
    });
    const answer = await json(res);
    const daily = answer.limits.find((l) => l.name === 'daily');
    if (daily && !answer.degraded) return daily.limit - daily.remaining;
    // Degraded: the API's circuit to Redis is open after decisions past their deadline; it retries after its cooldown.
    if (i === 50) throw new Error(`peek stays degraded: ${JSON.stringify(answer)}\n${target.proc.output}`);
    await sleep(100);
  }
}

async function measure(target, redis) {
  const usedBefore = target.daily ? await dailyUsed(target) : 0;
  let before;
  const { r, window } = await load(target, {
    warmup: warmupSeconds,
    duration: seconds,
    atWindow: async () => {
      before = { cpu: cpuMicros(target.proc.child.pid), calls: await scriptCalls(redis), redisCpu: await redisCpuMicros(redis) };
    },
  });
  const serverCpu = cpuMicros(target.proc.child.pid) - before.cpu;
  const redisCpuUsed = (await redisCpuMicros(redis)) - before.redisCpu;
  const callsMade = (await scriptCalls(redis)) - before.calls;
  await sleep(300); // answers still in flight when autocannon stopped
  const charged = target.daily ? (await dailyUsed(target)) - usedBefore : null;
  return {
    ...window,
    ok: r['2xx'],
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    notAdmitted: r.mismatches,
    charged,
    scriptCallsPerRequest: callsMade / window.answers,
    serverCpuUsPerRequest: serverCpu / window.answers,
    redisCpuUsPerRequest: redisCpuUsed / window.answers,
  };
}

/**
 * Latency of Tollgate (3 limits) and the bare route at the same offered load: `EQUAL_LOAD_SHARE` of the slower one's
 * measured throughput, so that neither is saturated. At saturation (the rounds above) each target's p99 also holds
 * the queueing of its own load, and a target that answers more requests per second keeps autocannon, which shares
 * the two CPUs, busier; at the same rate the two latencies compare the work of a request. Rounds interleaved.
 */
const EQUAL_LOAD_SHARE = 0.75;
async function equalLoad(a, b, rate) {
  const runs = { [a.id]: [], [b.id]: [] };
  for (let round = 0; round < rounds; round += 1) {
    for (const t of round % 2 === 0 ? [a, b] : [b, a]) {
      const { r, window } = await load(t, { warmup: warmupSeconds, duration: seconds, rate });
      if (failures(r) > 0) throw new Error(`${t.id} at ${rate}/s: answers that were not admissions`);
      runs[t.id].push(window);
    }
  }
  const summary = (id) => ({ ...mediansOf(runs[id], ['requestsPerSecond', 'p50', 'p975', 'p99']), p99Rounds: runs[id].map((x) => x.p99) });
  return { rate, [a.id]: summary(a.id), [b.id]: summary(b.id) };
}

/**
 * Tollgate (3 limits) and the bare route loaded at the same time, half the connections each, `rounds` times. Run
 * one after another, two targets meet different moments of a machine whose speed changes by ±15 % from one minute
 * to the next (a shared VM); at the same time they meet the same moments, and compete for the same two CPUs: the
 * one that needs less CPU per request answers more. A check on the sequential ratio, not the goal's measurement.
 */
async function paired(a, b) {
  const runs = { [a.id]: [], [b.id]: [] };
  for (let round = 0; round < rounds; round += 1) {
    await Promise.all(
      [a, b].map(async (t) => {
        let cpu = 0;
        const { r, window } = await load(t, { warmup: warmupSeconds, duration: seconds, connections: CONNECTIONS / 2, atWindow: () => (cpu = cpuMicros(t.proc.child.pid)) });
        if (failures(r) > 0) throw new Error(`${t.id}, paired: answers that were not admissions`);
        runs[t.id].push({ ...window, serverCpuUsPerRequest: (cpuMicros(t.proc.child.pid) - cpu) / window.answers });
      }),
    );
  }
  const keys = ['decidedPerSecond', 'p50', 'p975', 'p99', 'serverCpuUsPerRequest'];
  return {
    [a.id]: mediansOf(runs[a.id], keys),
    [b.id]: mediansOf(runs[b.id], keys),
    ratios: runs[a.id].map((x, i) => ({ decided: x.decidedPerSecond / runs[b.id][i].decidedPerSecond, p99: x.p99 / runs[b.id][i].p99 })),
  };
}

/** Parts of a request's work whose inclusive CPU time the profiles report. */
const WATCH = [
  ['body: JSON parse (secure-json-parse)', (f, part) => part === 'secure-json-parse'],
  ['body: validation (zod)', (f, part) => part === 'zod'],
  ['service key check (`Authenticator`)', (f) => f.url.endsWith('auth/authenticator.js')],
  ['Nest middleware (@fastify/middie)', (f, part) => part === '@fastify/middie'],
  ['decision up to Redis (`ResilientLimiter` → `RedisEngine` → ioredis)', (f) => f.url.endsWith('check/resilient-limiter.js')],
  ['ioredis (commands and replies)', (f, part) => part === 'ioredis'],
  ['`RateLimit`/`X-RateLimit-*` headers (`rateLimitHeaders`, structured-headers)', (f) => f.functionName === 'rateLimitHeaders'],
  ['metrics (prom-client)', (f, part) => part === 'prom-client'],
  ['socket writes (`writeUtf8String`: the kernel\'s loopback TCP)', (f) => f.functionName === 'writeUtf8String'],
  ['garbage collector', (f) => f.functionName === '(garbage collector)'],
].map(([label, match]) => ({ label, match }));

/** One profiled run of `target` (after the measured rounds): the process's profiler runs for the load only. */
async function profile(target, file) {
  rmSync(file, { force: true });
  const { r, window } = await load(target, { warmup: warmupSeconds, duration: seconds, atWindow: () => target.proc.child.send('cpu-profile') });
  target.proc.child.send('cpu-profile');
  for (let i = 0; !existsSync(file); i += 1) {
    if (i > 200) throw new Error(`${target.proc.name}: no profile written to ${file}`);
    await sleep(100);
  }
  const failed = failures(r);
  return { requests: window.answers, requestsPerSecond: window.requestsPerSecond, failed, ...summarize(JSON.parse(readFileSync(file, 'utf8')), root, { watch: WATCH }) };
}

// ---- the run -------------------------------------------------------------------------------------------------

const redis = new Redis(redisUrl);
const keptProfiles = process.env.BENCH_PROFILE_DIR; // keep the .cpuprofile files there (open them in DevTools)
const profileDir = profiling ? (keptProfiles ? (mkdirSync(keptProfiles, { recursive: true }), keptProfiles) : mkdtempSync(join(tmpdir(), 'tollgate-enforcement-'))) : null;
const loadBefore = loadavg();
let results;
try {
  await prepareStores(redis);
  const s = await startServers(profileDir);
  const key = await createTenants(s.api.url);
  const floorOf = (name, env) => startFloor(s, s.api.url, key, bodies('bench-three')[0], name, env);
  s.floor = await floorOf('floor');
  s.floorRedis = await floorOf('floorRedis', { FLOOR_REDIS_URL: redisUrl });
  s.floorRedisEach = await floorOf('floorRedisEach', { FLOOR_REDIS_URL: redisUrl, FLOOR_REDIS_PIPELINE: 'false' });
  const target = (id, label, server, path, extra = {}) => {
    const t = { id, label, url: server.url, proc: server.proc, path, key, tenant: 'bench-three', ...extra };
    return { ...t, bodies: bodies(t.tenant) };
  };
  const targets = [
    target('tollgate3', 'Tollgate `/v1/check`, plan of 3 limits', s.api, '/v1/check', { daily: true }),
    target('tollgate1', 'Tollgate `/v1/check`, plan of 1 limit', s.api, '/v1/check', { tenant: 'bench-one' }),
    target('uncounted', 'Tollgate `/v1/check`, plan of 3 limits, usage counting off (`USAGE_COUNTING=false`)', s.uncounted, '/v1/check'),
    target('bare', 'bare Nest + Fastify route, one `EVALSHA` (baseline)', s.bare, '/v1/check'),
    target('floor', 'HTTP floor: plain Fastify answering Tollgate\'s answer as a constant (no Redis)', s.floor, '/v1/check'),
    target('floorRedis', 'HTTP floor asking Redis once per request (`EVALSHA` of `return 1`, auto-pipelined)', s.floorRedis, '/v1/check'),
    target('floorRedisEach', 'HTTP floor asking Redis once per request (`EVALSHA` of `return 1`, a write per command)', s.floorRedisEach, '/v1/check'),
    target('throttler3', '@nestjs/throttler, 3 named throttlers', s.throttler, '/v1/check'),
    target('throttler1', '@nestjs/throttler, 1 throttler', s.throttler, '/v1/check/one'),
    target('flexible3', 'rate-limiter-flexible, `RateLimiterUnion` of 3', s.flexible, '/v1/check'),
    target('flexible1', 'rate-limiter-flexible, 1 `RateLimiterRedis`', s.flexible, '/v1/check/one'),
    ...(s.baseline ? [target('baseline', `Tollgate \`/v1/check\`, plan of 3 limits, as built in ${baselineDir}`, s.baseline, '/v1/check')] : []),
  ];
  const byId = (id) => targets.find((t) => t.id === id);
  // BENCH_TARGETS=tollgate3,bare measures only those (a quick comparison; the report needs all of them).
  const only = process.env.BENCH_TARGETS?.split(',');
  const measuredTargets = only ? targets.filter((t) => only.includes(t.id)) : targets;
  // Once per server before the rounds: the JIT's tiers, and the heap grown to its working size (the API's young
  // generation grows to ~50 MB and its old one to ~55 MB under this load, with mark-compacts on the way), which
  // otherwise land in the first round of a freshly started server.
  for (const t of measuredTargets) await load(t, { warmup: initialWarmupSeconds, duration: 1 });
  const perRound = [];
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? measuredTargets : [...measuredTargets].reverse();
    const measured = {};
    for (const t of order) measured[t.id] = await measure(t, redis);
    perRound.push(measured);
  }
  let sameLoad = null;
  let together = null;
  if (perRound[0].tollgate3 && perRound[0].bare) {
    const slower = Math.min(median(perRound.map((r) => r.tollgate3.decidedPerSecond)), median(perRound.map((r) => r.bare.decidedPerSecond)));
    sameLoad = await equalLoad(byId('tollgate3'), byId('bare'), Math.round(slower * EQUAL_LOAD_SHARE));
    together = await paired(byId('tollgate3'), byId('bare'));
  }
  // Usage counting on and off, loaded together: the same moments of this machine for both, so the one that needs
  // less CPU per request answers more (one after another, two targets meet different moments: ±15 % here).
  let countedTogether = null;
  if (perRound[0].tollgate3 && perRound[0].uncounted) countedTogether = await paired(byId('tollgate3'), byId('uncounted'));
  // This build and BENCH_BASELINE's, loaded together (the same moments of the machine for both).
  let baselineTogether = null;
  if (pairedWithBaseline && perRound[0].tollgate3 && perRound[0].baseline) baselineTogether = await paired(byId('tollgate3'), byId('baseline'));
  let profiles = null;
  if (profileDir) {
    profiles = {
      api: await profile(byId('tollgate3'), join(profileDir, 'api.cpuprofile')),
      bare: await profile(byId('bare'), join(profileDir, 'bare.cpuprofile')),
    };
  }
  const medians = Object.fromEntries(
    measuredTargets.map((t) => {
      const runs = perRound.map((r) => r[t.id]);
      const keys = Object.keys(runs[0]).filter((k) => k !== 'charged');
      const m = mediansOf(runs, keys);
      return [t.id, { label: t.label, ...m, total: sumOf(runs) }];
    }),
  );
  results = { machine: machine(), seconds, warmupSeconds, initialWarmupSeconds, rounds, connections: CONNECTIONS, loadBefore, loadAfter: loadavg(), perRound, medians, sameLoad, together, countedTogether, baselineTogether, profiles };
} finally {
  await stopAll();
  await redis.flushdb().catch(() => undefined);
  redis.disconnect();
  await ownRedis?.stop();
  if (profileDir && !keptProfiles) rmSync(profileDir, { recursive: true, force: true });
}

/** Totals over the rounds, for the correctness line: every answer a 2xx admission, every admission charged. */
function sumOf(runs) {
  const sum = (k) => runs.reduce((a, r) => a + (r[k] ?? 0), 0);
  return { ok: sum('ok'), non2xx: sum('non2xx'), errors: sum('errors'), timeouts: sum('timeouts'), notAdmitted: sum('notAdmitted'), charged: runs[0].charged === null ? null : sum('charged') };
}

if (!markdown) console.log(JSON.stringify(results, null, 2));
else if (process.env.BENCH_TARGETS) console.log(brief(results));
else console.log(report(results));

/** The measured targets only, one line each (for BENCH_TARGETS runs). */
function brief(r) {
  const lines = Object.entries(r.medians).map(([id, x]) => `${id}: ${fmt(x.decidedPerSecond)} decided/s, p50/p97.5/p99 ${fmt(x.p50, 1)}/${fmt(x.p975, 1)}/${fmt(x.p99, 1)} ms, server CPU ${fmt(x.serverCpuUsPerRequest)} µs/request, Redis CPU ${fmt(x.redisCpuUsPerRequest)} µs/request, ${fmt(x.scriptCallsPerRequest, 3)} script calls/request, load generator's event loop late by p99 ${fmt(x.clientDelayP99, 1)} / max ${fmt(x.clientDelayMax, 1)} ms (its GC ${fmt(x.clientGcMs)} ms in all, longest ${fmt(x.clientGcMaxMs, 1)}), ${fmt(x.total.non2xx + x.total.errors + x.total.timeouts + x.total.notAdmitted)} failed`);
  const { tollgate3: t, bare: b } = r.medians;
  const f = r.medians.floor;
  if (f) lines.push(`of the HTTP floor: ${Object.entries(r.medians).map(([id, x]) => `${id} ${fmt(x.decidedPerSecond / f.decidedPerSecond, 2)}×`).join(', ')}`);
  for (const id of ['floorRedis', 'floorRedisEach']) {
    const fr = r.medians[id];
    if (fr && t) lines.push(`tollgate3's server CPU per request vs ${id}'s: ${fmt(t.serverCpuUsPerRequest / fr.serverCpuUsPerRequest, 2)}×; per round ${r.perRound.map((x) => `${fmt(x.tollgate3.serverCpuUsPerRequest)} vs ${fmt(x[id].serverCpuUsPerRequest)} µs`).join(', ')}`);
    if (f && fr) lines.push(`${id} vs the floor: ${fmt(fr.serverCpuUsPerRequest / f.serverCpuUsPerRequest, 2)}× CPU per request; per round ${r.perRound.map((x) => `${fmt(x[id].serverCpuUsPerRequest / x.floor.serverCpuUsPerRequest, 2)}×`).join(', ')}`);
  }
  if (f && t) lines.push(`tollgate3's server CPU per request vs the floor's: ${fmt(t.serverCpuUsPerRequest / f.serverCpuUsPerRequest, 2)}×; per round ${r.perRound.map((x) => `${fmt(x.tollgate3.serverCpuUsPerRequest)} vs ${fmt(x.floor.serverCpuUsPerRequest)} µs (${fmt(x.tollgate3.serverCpuUsPerRequest / x.floor.serverCpuUsPerRequest, 2)}×)`).join(', ')}`);
  const c = r.countedTogether;
  if (c) lines.push(`counted and uncounted loaded together (${CONNECTIONS / 2} connections each): tollgate3 ${fmt(c.tollgate3.decidedPerSecond)} decided/s, p99 ${fmt(c.tollgate3.p99, 1)} ms, ${fmt(c.tollgate3.serverCpuUsPerRequest)} µs/request; uncounted ${fmt(c.uncounted.decidedPerSecond)}, p99 ${fmt(c.uncounted.p99, 1)} ms, ${fmt(c.uncounted.serverCpuUsPerRequest)} µs/request; rounds ${c.ratios.map((x) => `${fmt(x.decided, 2)}×/${fmt(x.p99, 2)}×`).join(', ')}`);
  const a = r.baselineTogether;
  if (a) lines.push(`this build and BENCH_BASELINE's loaded together (${CONNECTIONS / 2} connections each): tollgate3 ${fmt(a.tollgate3.decidedPerSecond)} decided/s, p99 ${fmt(a.tollgate3.p99, 1)} ms, ${fmt(a.tollgate3.serverCpuUsPerRequest)} µs/request; baseline ${fmt(a.baseline.decidedPerSecond)}, p99 ${fmt(a.baseline.p99, 1)} ms, ${fmt(a.baseline.serverCpuUsPerRequest)} µs/request; rounds (decided/s, p99) ${a.ratios.map((x) => `${fmt(x.decided, 2)}×/${fmt(x.p99, 2)}×`).join(', ')}`);
  const u = r.medians.uncounted;
  if (t && u) lines.push(`tollgate3 (usage counted) vs uncounted: ${fmt(t.decidedPerSecond / u.decidedPerSecond, 2)}× decided/s, ${fmt(t.p99 / u.p99, 2)}× p99, CPU ${fmt(t.serverCpuUsPerRequest)} vs ${fmt(u.serverCpuUsPerRequest)} µs/request, Redis ${fmt(t.redisCpuUsPerRequest)} vs ${fmt(u.redisCpuUsPerRequest)} µs/request; per round ${r.perRound.map((x) => `${fmt(x.tollgate3.decidedPerSecond / x.uncounted.decidedPerSecond, 2)}×`).join(', ')}`);
  if (t && b) lines.push(`tollgate3 vs bare: ${fmt(t.decidedPerSecond / b.decidedPerSecond, 2)}× decided/s, ${fmt(t.p99 / b.p99, 2)}× p99; per round ${r.perRound.map((x) => `${fmt(x.tollgate3.decidedPerSecond / x.bare.decidedPerSecond, 2)}× (p99 ${fmt(x.tollgate3.p99, 1)} vs ${fmt(x.bare.p99, 1)} ms)`).join(', ')}`);
  const p = r.together;
  if (p) lines.push(`loaded together (${CONNECTIONS / 2} connections each): tollgate3 ${fmt(p.tollgate3.decidedPerSecond)} decided/s, p50/p97.5/p99 ${fmt(p.tollgate3.p50, 1)}/${fmt(p.tollgate3.p975, 1)}/${fmt(p.tollgate3.p99, 1)} ms, ${fmt(p.tollgate3.serverCpuUsPerRequest)} µs/request; bare ${fmt(p.bare.decidedPerSecond)}, ${fmt(p.bare.p50, 1)}/${fmt(p.bare.p975, 1)}/${fmt(p.bare.p99, 1)} ms, ${fmt(p.bare.serverCpuUsPerRequest)} µs/request; rounds ${p.ratios.map((x) => `${fmt(x.decided, 2)}×/${fmt(x.p99, 2)}×`).join(', ')}`);
  const e = r.sameLoad;
  if (e) lines.push(`both at ${fmt(e.rate)} requests/s: tollgate3 p50/p97.5/p99 ${fmt(e.tollgate3.p50, 1)}/${fmt(e.tollgate3.p975, 1)}/${fmt(e.tollgate3.p99, 1)} ms, bare ${fmt(e.bare.p50, 1)}/${fmt(e.bare.p975, 1)}/${fmt(e.bare.p99, 1)} ms: p99 ${fmt(e.tollgate3.p99 / e.bare.p99, 2)}× (rounds ${e.tollgate3.p99Rounds.map((x) => fmt(x, 1)).join('/')} vs ${e.bare.p99Rounds.map((x) => fmt(x, 1)).join('/')} ms)`);
  for (const [name, p] of Object.entries(r.profiles ?? {})) {
    lines.push(`${name} profile: ${fmt(p.requestsPerSecond)} requests/s; ${p.watched.map((w) => `${w.name} ${fmt((w.ms * 1000) / p.requests, 1)} µs`).join('; ')}`);
    lines.push(`  top self: ${p.functions.slice(0, 15).map((f) => `${f.name} ${fmt(f.share * 100, 1)}%`).join(', ')}`);
  }
  return lines.join('\n');
}

function report(r) {
  const m = r.medians;
  const ratio = (a, b) => `${fmt(a / b, 2)}×`;
  const row = (id, vs) => {
    const x = m[id];
    const cmp = vs ? `**${ratio(m[vs.id].decidedPerSecond, x.decidedPerSecond)}** (goal ≥ ${vs.goal})` : '';
    return `| ${x.label} | ${fmt(x.requestsPerSecond)} | ${fmt(x.decidedPerSecond)} | ${fmt(x.p50, 1)} | ${fmt(x.p975, 1)} | ${fmt(x.p99, 1)} | ${fmt(x.total.non2xx + x.total.errors + x.total.timeouts)} | ${fmt(x.total.notAdmitted)} | ${fmt(x.scriptCallsPerRequest, 2)} | ${fmt(x.serverCpuUsPerRequest)} | ${fmt(x.redisCpuUsPerRequest)} | ${cmp} |`;
  };
  const t3 = m.tollgate3;
  const bare = m.bare;
  const roundRatios = r.perRound.map((x) => `${fmt(x.tollgate3.decidedPerSecond / x.bare.decidedPerSecond, 2)}× / ${fmt(x.tollgate3.p99 / x.bare.p99, 2)}×`).join('; ');
  const allTotals = Object.values(m).map((x) => x.total);
  const load = (l) => l.map((x) => fmt(x, 2)).join(' / ');
  const profileTable = (p) =>
    p
      ? `${fmt(p.requestsPerSecond)} requests/s while profiled, ${fmt(p.failed)} answers not an admission (or degraded); the thread was busy ${fmt(p.busyMs)} ms of ${fmt(p.totalMs)} ms.

| by package / part (self) | share | by package / part (inclusive) | share |
|---|---:|---|---:|
${p.self
  .slice(0, 14)
  .map((s, i) => `| ${s.name} | ${fmt(s.share * 100, 1)} % | ${p.inclusive[i]?.name ?? ''} | ${p.inclusive[i] ? `${fmt(p.inclusive[i].share * 100, 1)} %` : ''} |`)
  .join('\n')}

| part of the work (inclusive) | share of busy CPU | µs per request |
|---|---:|---:|
${p.watched.map((w) => `| ${w.name} | ${fmt(w.share * 100, 1)} % | ${fmt((w.ms * 1000) / p.requests, 1)} |`).join('\n')}

Functions with the most self time: ${p.functions.slice(0, 12).map((f) => `\`${f.name}\` ${fmt(f.share * 100, 1)} %`).join(', ')}.`
      : '';
  return `## Enforcement API

Command: \`npm run build && node bench/enforcement.mjs --markdown${r.profiles ? ' --profile' : ''}\` (BENCH_SECONDS=${r.seconds}, warm-up ${r.warmupSeconds} s, ${r.rounds} rounds).
Machine: ${r.machine.cpu}, ${r.machine.memoryGiB} GiB, Node ${r.machine.node}, Redis ${r.machine.redis} (local), ${r.machine.date}; load
average (1/5/15 min) ${load(r.loadBefore)} before, ${load(r.loadAfter)} after.

autocannon, ${r.connections} connections, from the bench process; every server is its own process on the same machine (2 CPUs
shared by autocannon, the server and Redis). Every server is first loaded for ${r.initialWarmupSeconds} s (JIT tiers, heap grown to its
working size); then each measured run loads it for ${r.warmupSeconds} + ${r.seconds} s on the same connections and measures only the last ${r.seconds} s
(answers completed then: requests/s, latency percentiles from every answer's own time, CPU), so that neither the
opening of 64 connections nor a cold process counts. Same requests for every target: \`POST /v1/check\` with a service key and
\`{ tenant, endpoint: 'GET /v1/items', subject }\`, ${SUBJECTS} subjects in turn. The limits (a token bucket of 1,000,000/s —
a fixed window of 1,000,000/s for the peers, which have no bucket —, 10⁹ per minute, 10⁹ per day) are never reached;
they count per tenant, as a Tollgate plan's limits do. Figures are medians over the rounds; targets run one after
another, in reverse order every other round.

| target | requests/s | decided on Redis /s | p50 ms | p97.5 ms | p99 ms | non-2xx + errors | not admitted / degraded | script calls / request | server CPU µs / request | Redis CPU µs / request | Tollgate 3 limits vs it |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|
${row('tollgate3')}
${row('tollgate1')}
${row('uncounted', { id: 'tollgate3', goal: '0.95×: counting on vs off' })}
${row('bare', { id: 'tollgate3', goal: '0.90×' })}
${row('floor')}
${row('floorRedis')}
${row('floorRedisEach')}
${row('throttler3', { id: 'tollgate3', goal: '1.5×' })}
${row('throttler1', { id: 'tollgate1', goal: '1.5×, with 1 limit' })}
${row('flexible3', { id: 'tollgate3', goal: '1.5×' })}
${row('flexible1', { id: 'tollgate1', goal: '1.5×, with 1 limit' })}

Against the bare EVALSHA route: decisions/s **${ratio(t3.decidedPerSecond, bare.decidedPerSecond)}** (goal ≥ 0.90×), p99 at saturation **${ratio(t3.p99, bare.p99)}** (goal ≤ 1.25×);
per round (decisions/s / p99): ${roundRatios}. With 1 limit: ${ratio(m.tollgate1.decidedPerSecond, bare.decidedPerSecond)} / ${ratio(m.tollgate1.p99, bare.p99)}.
The load generator's own event loop (this process: autocannon times every answer on it) was late by up to
${Object.values(m).map((x) => `${fmt(x.clientDelayMax, 0)} ms (p99 ${fmt(x.clientDelayP99, 1)}; its own GC ${fmt(x.clientGcMs)} ms, longest ${fmt(x.clientGcMaxMs, 1)})`).join(', ')} in the
runs of the targets above, in the table's order (medians of the rounds): an answer that arrives while it is held up
is timed late by as much, whichever server sent it (the load generator runs with \`${LOAD_GENERATOR_FLAG}\`, above).
Ratios compare admissions decided on Redis per second (for the peers, every 2xx).
${r.sameLoad ? `
**Latency at the same load.** Both offered ${fmt(r.sameLoad.rate)} requests/s (${fmt(EQUAL_LOAD_SHARE * 100)} % of the slower one's throughput above), 64
connections, ${r.rounds} interleaved rounds of ${r.seconds} s (medians; every answer a 2xx admission):

| target | requests/s | p50 ms | p97.5 ms | p99 ms | p99 per round |
|---|---:|---:|---:|---:|---|
| Tollgate \`/v1/check\`, 3 limits | ${fmt(r.sameLoad.tollgate3.requestsPerSecond)} | ${fmt(r.sameLoad.tollgate3.p50, 1)} | ${fmt(r.sameLoad.tollgate3.p975, 1)} | ${fmt(r.sameLoad.tollgate3.p99, 1)} | ${r.sameLoad.tollgate3.p99Rounds.map((x) => fmt(x, 1)).join(', ')} |
| bare Nest + Fastify route, one \`EVALSHA\` | ${fmt(r.sameLoad.bare.requestsPerSecond)} | ${fmt(r.sameLoad.bare.p50, 1)} | ${fmt(r.sameLoad.bare.p975, 1)} | ${fmt(r.sameLoad.bare.p99, 1)} | ${r.sameLoad.bare.p99Rounds.map((x) => fmt(x, 1)).join(', ')} |

p99 at the same load: **${ratio(r.sameLoad.tollgate3.p99, r.sameLoad.bare.p99)}** the bare route's (goal ≤ 1.25×).
` : ''}${r.together ? `
**Loaded together.** Tollgate (3 limits) and the bare route under load at the same time, ${r.connections / 2} connections each, ${r.rounds}
rounds (medians): one after another, two targets meet different moments of this machine, whose speed changes by
±15 % from one minute to the next; together they meet the same moments and share the two CPUs, so the one that
needs less CPU per request answers more. A check on the ratios above, not the goal's measurement.

| target | decided /s | p50 ms | p97.5 ms | p99 ms | server CPU µs / request |
|---|---:|---:|---:|---:|---:|
| Tollgate \`/v1/check\`, 3 limits | ${fmt(r.together.tollgate3.decidedPerSecond)} | ${fmt(r.together.tollgate3.p50, 1)} | ${fmt(r.together.tollgate3.p975, 1)} | ${fmt(r.together.tollgate3.p99, 1)} | ${fmt(r.together.tollgate3.serverCpuUsPerRequest)} |
| bare Nest + Fastify route, one \`EVALSHA\` | ${fmt(r.together.bare.decidedPerSecond)} | ${fmt(r.together.bare.p50, 1)} | ${fmt(r.together.bare.p975, 1)} | ${fmt(r.together.bare.p99, 1)} | ${fmt(r.together.bare.serverCpuUsPerRequest)} |

Per round, Tollgate's decisions/s and p99 against the bare route's: ${r.together.ratios.map((x) => `${fmt(x.decided, 2)}× / ${fmt(x.p99, 2)}×`).join('; ')}.
` : ''}

The HTTP floor (bench/apps/http-floor.mjs: plain Fastify, no Nest, no Redis, answering Tollgate's own answer body
and rate-limit headers as a constant, each request at once) is what receiving this request and sending that answer
costs on this stack: ${fmt(m.floor.serverCpuUsPerRequest)} µs of server CPU per request. The bare route uses ${fmt(bare.serverCpuUsPerRequest)} µs, Tollgate ${fmt(t3.serverCpuUsPerRequest)} µs
(plus ${fmt(t3.redisCpuUsPerRequest)} µs of Redis against the bare route's ${fmt(bare.redisCpuUsPerRequest)}). The server's one thread is the bottleneck of every
target, so requests per second follow server CPU per request (most of it the kernel's loopback TCP, in
\`writeUtf8String\` below). Per request Tollgate spends ${fmt(t3.serverCpuUsPerRequest - m.floor.serverCpuUsPerRequest)} µs against the floor's, the bare route
${fmt(bare.serverCpuUsPerRequest - m.floor.serverCpuUsPerRequest)} µs (Nest and one \`EVALSHA\` round trip per request). The floor is not a strict lower bound: Tollgate
answers a batch of one tenant's checks together, after one script call, which the floor's answer-at-once does not.
The same floor asking Redis once per request before it answers (\`FLOOR_REDIS_URL\`: an \`EVALSHA\` of \`return 1\` through
ioredis, nothing decided) is what one Redis round trip a request adds on this stack: ${fmt(m.floorRedis.serverCpuUsPerRequest)} µs a request with the
commands of a turn written together (auto-pipelining; ${ratio(m.floorRedis.serverCpuUsPerRequest, m.floor.serverCpuUsPerRequest)} the floor's), ${fmt(m.floorRedisEach.serverCpuUsPerRequest)} µs with a write per command
(${ratio(m.floorRedisEach.serverCpuUsPerRequest, m.floor.serverCpuUsPerRequest)}). Tollgate's ${fmt(t3.serverCpuUsPerRequest)} µs are ${ratio(t3.serverCpuUsPerRequest, m.floorRedis.serverCpuUsPerRequest)} and ${ratio(t3.serverCpuUsPerRequest, m.floorRedisEach.serverCpuUsPerRequest)} of these.

Correctness over all rounds: ${fmt(allTotals.reduce((a, t) => a + t.ok, 0))} answers 2xx, ${fmt(allTotals.reduce((a, t) => a + t.non2xx, 0))} non-2xx,
${fmt(allTotals.reduce((a, t) => a + t.errors + t.timeouts, 0))} errors or timeouts, ${fmt(allTotals.reduce((a, t) => a + t.notAdmitted, 0))} answers that were not an admission
(Tollgate's: \`allowed: true\` and not \`degraded\`). Tollgate's own counters (daily window, read with \`/v1/check/peek\` before and
after each measured run, 3 limits) went up by ${fmt(t3.total.charged)} for ${fmt(t3.total.ok)} 2xx answers (answers still in flight when
autocannon stops are charged but not counted: at most ${r.connections} a run).
"Script calls / request" and "Redis CPU" come from Redis's \`INFO\` (the whole server, other databases included).
${r.profiles ? `
### CPU profile of the API under the same load (3 limits, ${r.seconds} s)
${profileTable(r.profiles.api)}

### CPU profile of the bare EVALSHA app, same load
${profileTable(r.profiles.bare)}
` : ''}`;
}
