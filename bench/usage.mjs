#!/usr/bin/env node
// The usage pipeline (docs/adr/0015-usage-counting-and-rollups.md), two measurements:
// 1. Rollup lag: BENCH_TENANTS (10,000) active tenants × 3 endpoint policies count decisions for BENCH_MINUTES (3)
//    minutes into Redis exactly as the API does (one usage hash per tenant and minute, the minute's set of tenants),
//    spread evenly over each minute; the built worker (defaults: a rollup every 10 s, 15 s of grace) moves them into
//    Postgres (the open minutes too, every USAGE_LIVE_EVERY_MS). Lag = when all of a decision's minute's rows are in
//    Postgres − when the decision was made (each tenant writes its minute once, so its rows are then final); also when
//    the closed minute's own rollup wrote it (`tg:{usage}:rolled`). The baseline is the lag of
//    an instant rollup at the end of the grace period (the minute's end + 15 s), measured against the same decisions.
// 2. The usage API on seeded data of BENCH_SEED_TENANTS (1,000) tenants × BENCH_SEED_DAYS (30) days (hour and day
//    rows, minute rows of the last 6 hours): `GET /v1/admin/usage` for one tenant's last 24 h and `/v1/admin/usage/top`
//    over 30 days, against `GET /v1/admin/tenants` (same sign-in, one indexed page) in the same run.
// 3. Live lag (BENCH_PARTS=live, not run by default): the built API and worker with their defaults; BENCH_LIVE_S (180)
//    seconds of single checks, about one a second at random moments, alternating between tenants whose decisions
//    the limit script counts in Redis and suspended tenants whose refusals the API node counts in memory (flushed every
//    USAGE_FLUSH_MS); lag = when the tenant's minute rows in Postgres first hold the decision − when the check was sent.
//    Against the documented bounds (USAGE_LIVE_EVERY_MS; plus USAGE_FLUSH_MS for the node's counts), and how many of
//    the worker's rollup runs wrote the open minute (its completed jobs' results).
// Run: `npm run build && node bench/usage.mjs [--markdown]`. Env: the counts above, BENCH_DATABASE_URL (recreated),
// BENCH_REDIS_URL (default: a redis-server of the run's own on a free port; a database named here is flushed),
// BENCH_PARTS (lag,api by default; live).
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { startRedisServer } from '../scripts/lib/redis-server.mjs';
import { fmt, freshDemoDatabase, machine, operatorToken, percentile, seedTenants, seedUsageHistory, startApiNodes, summary } from './lib.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// The built lib (CommonJS): its names are on the default export.
const { activeTenantsKey, countField, costField, minuteOf, usageKey, USAGE_KEY_TTL_S, ROLLED_KEY } = (await import('@tollgate/usage')).default;

const TENANTS = Number(process.env.BENCH_TENANTS ?? 10_000);
const MINUTES = Number(process.env.BENCH_MINUTES ?? 3);
const SEED_TENANTS = Number(process.env.BENCH_SEED_TENANTS ?? 1_000);
const SEED_DAYS = Number(process.env.BENCH_SEED_DAYS ?? 30);
const GRACE_S = 15;
const markdown = process.argv.includes('--markdown');
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/tollgate_bench_usage';
const ownRedis = process.env.BENCH_REDIS_URL ? undefined : await startRedisServer('tollgate-bench-usage');
const redisUrl = process.env.BENCH_REDIS_URL ?? ownRedis.url;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- 1. rollup lag ---------------------------------------------------------------------------------------------

/** The built worker with its defaults, once it has caught up (a worker that has been running is up to date). */
async function startWorker(redis) {
  const worker = spawn(process.execPath, ['apps/worker/dist/main.js'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, LOG_LEVEL: 'warn', NODE_ENV: 'production' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const stop = async () => {
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r));
  };
  try {
    // A worker that starts with nothing rolled up catches up on the last two hours of (empty) minutes first.
    const caughtUp = Date.now() + 180_000;
    while (Number(await redis.get(ROLLED_KEY)) < minuteOf(await redisClock(redis)) - 120) {
      if (Date.now() > caughtUp) throw new Error('the worker did not catch up on the last two hours');
      await sleep(500);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return stop;
}

/** Redis's clock in epoch ms. */
async function redisClock(redis) {
  const [s, us] = await redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

async function rollupLag(db, redis) {
  const tenants = await seedTenants(db, TENANTS);
  const stopWorker = await startWorker(redis);
  try {
    const redisNow = () => redisClock(redis);
    // Start at the next minute's edge, so that every measured minute is written whole.
    await sleep(60_000 - ((await redisNow()) % 60_000) + 200);
    const first = minuteOf(await redisNow());
    const measured = Array.from({ length: MINUTES }, (_, m) => first + 60 * m);
    // When each minute's rows are in Postgres (the worker commits a minute in one transaction), watched from now on,
    // while the next minutes are written; a Postgres client of its own.
    const rolledAt = new Map();
    const finalAt = new Map();
    const expectedRows = TENANTS * 3 * 2;
    const watcher = new pg.Client({ connectionString: databaseUrl });
    await watcher.connect();
    const watching = (async () => {
      const deadline = Date.now() + (MINUTES * 60 + 300) * 1000;
      try {
        while ((rolledAt.size < measured.length || finalAt.size < measured.length) && Date.now() < deadline) {
          for (const minute of measured) {
            if (rolledAt.has(minute)) continue;
            const { rows } = await watcher.query('select count(*)::int as n from usage_minute where bucket = to_timestamp($1)', [minute]);
            if (rows[0].n >= expectedRows) rolledAt.set(minute, await redisNow());
          }
          // The closed minute's own rollup (the open minutes are written as they go: USAGE_LIVE_EVERY_MS).
          const rolled = Number((await redis.get(ROLLED_KEY)) ?? 0);
          const now = await redisNow();
          for (const minute of measured) if (rolled >= minute && !finalAt.has(minute)) finalAt.set(minute, now);
          await sleep(250);
        }
      } finally {
        await watcher.end();
      }
    })();
    const minutes = [];
    for (let m = 0; m < MINUTES; m += 1) {
      const minute = measured[m];
      const decisionTimes = [];
      // 60 slices of a second: each writes its share of the tenants, as their decisions arrive.
      for (let slice = 0; slice < 60; slice += 1) {
        const due = minute * 1000 + slice * 1000 + 500;
        const now = await redisNow();
        if (due > now) await sleep(due - now);
        const mine = tenants.filter((_, i) => i % 60 === slice);
        const at = await redisNow();
        for (let i = 0; i < mine.length; i += 500) {
          const p = redis.pipeline();
          for (const t of mine.slice(i, i + 500)) {
            const key = usageKey(t.id, minute);
            for (const policy of t.policies) {
              p.hincrby(key, countField(policy, 'allowed', ''), 7);
              p.hincrby(key, costField(policy, 'allowed', ''), 7);
              p.hincrby(key, countField(policy, 'denied', 'minute'), 1);
            }
            p.expire(key, USAGE_KEY_TTL_S, 'NX');
            decisionTimes.push(at);
          }
          p.sadd(activeTenantsKey(minute), ...mine.slice(i, i + 500).map((t) => t.id));
          await p.exec();
        }
      }
      const finished = await redisNow();
      // Counts written after their minute's grace period would miss its rollup (the API's are written as they are decided).
      if (finished > (minute + 60 + GRACE_S) * 1000) throw new Error(`writing minute ${minute} took until ${(finished - minute * 1000) / 1000} s: this machine is too busy for the measurement`);
      minutes.push({ minute, decisionTimes });
    }
    await watching;
    if (rolledAt.size < minutes.length) throw new Error(`only ${rolledAt.size} of ${minutes.length} minutes were rolled up (rolled key: ${await redis.get(ROLLED_KEY)})`);
    const lags = [];
    const baseline = [];
    for (const { minute, decisionTimes } of minutes) {
      for (const t of decisionTimes) {
        lags.push((rolledAt.get(minute) - t) / 1000);
        baseline.push(((minute + 60 + GRACE_S) * 1000 - t) / 1000);
      }
    }
    const { rows } = await db.query('select coalesce(sum(decisions), 0)::bigint as n from usage_minute');
    return {
      tenants: TENANTS,
      minutes: MINUTES,
      rowsPerMinute: expectedRows,
      decisionsCounted: Number(rows[0].n),
      decisionsWritten: TENANTS * 3 * 8 * MINUTES,
      lagP50: percentile(lags, 50),
      lagP95: percentile(lags, 95),
      lagMax: Math.max(...lags),
      baselineP95: percentile(baseline, 95),
      rollupAfterGrace: [...rolledAt].map(([minute, at]) => (at - (minute + 60 + GRACE_S) * 1000) / 1000),
      finalAfterGrace: [...finalAt].map(([minute, at]) => (at - (minute + 60 + GRACE_S) * 1000) / 1000),
    };
  } finally {
    await stopWorker();
  }
}

// ---- 2. the usage API ------------------------------------------------------------------------------------------

async function apiLatency(db) {
  const seeded = await seedUsageHistory(db, { tenants: SEED_TENANTS, days: SEED_DAYS });
  const [node] = await startApiNodes(1, { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl });
  try {
    const token = await operatorToken(node.url);
    const get = async (path) => {
      const t0 = performance.now();
      const res = await fetch(`${node.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${res.status} ${path}: ${body.slice(0, 300)}`);
      return performance.now() - t0;
    };
    const now = Date.now();
    const iso = (ms) => new Date(ms).toISOString();
    const measure = async (n, path) => {
      for (let i = 0; i < 3; i += 1) await get(path(i)); // warm
      const times = [];
      for (let i = 0; i < n; i += 1) times.push(await get(path(i)));
      return summary(times);
    };
    const pick = (i) => seeded.tenants[(i * 7919) % seeded.tenants.length].slug;
    return {
      seeded: { tenants: SEED_TENANTS, days: SEED_DAYS, ...seeded.rows, seedSeconds: seeded.seedSeconds },
      baseline: await measure(100, () => '/v1/admin/tenants?pageSize=50'),
      tenant24h: await measure(100, (i) => `/v1/admin/usage?tenant=${pick(i)}&from=${iso(now - 86_400_000)}&to=${iso(now)}`),
      tenant6h: await measure(100, (i) => `/v1/admin/usage?tenant=${pick(i)}&from=${iso(now - 6 * 3_600_000)}&to=${iso(now)}`),
      all30d: await measure(20, () => `/v1/admin/usage?from=${iso(now - 30 * 86_400_000)}&to=${iso(now)}`),
      top30d: await measure(20, (i) => `/v1/admin/usage/top?by=${['tenants', 'policies', 'limits'][i % 3]}&metric=denied&from=${iso(now - 30 * 86_400_000)}&to=${iso(now)}`),
    };
  } finally {
    node.child.kill('SIGTERM');
  }
}

// ---- 3. live lag ------------------------------------------------------------------------------------------------

const LIVE_S = Number(process.env.BENCH_LIVE_S ?? 180);

async function liveLag(db, redis) {
  const stopWorker = await startWorker(redis);
  const [node] = await startApiNodes(1, { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl });
  try {
    const token = await operatorToken(node.url);
    const admin = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const plans = await (await fetch(`${node.url}/v1/admin/plans`, { headers: admin })).json();
    const planId = plans.items.find((p) => p.slug === 'pro').id;
    // A service key for every tenant (the demo's is scoped to the demo tenants).
    const created = await fetch(`${node.url}/v1/admin/keys`, { method: 'POST', headers: admin, body: JSON.stringify({ kind: 'service', name: 'bench live' }) });
    if (created.status !== 201) throw new Error(`creating a service key answered ${created.status}`);
    const serviceKey = (await created.json()).key;
    // Tenants whose checks Redis decides (counted by the limit script), and suspended ones (refused, counted by the node).
    const probes = [];
    for (let i = 0; i < 6; i += 1) {
      for (const counted of ['redis', 'node']) {
        const res = await fetch(`${node.url}/v1/admin/tenants`, {
          method: 'POST',
          headers: admin,
          body: JSON.stringify({ slug: `live-${counted}-${i}`, name: `Live ${i}`, planId, status: counted === 'node' ? 'suspended' : 'active' }),
        });
        if (res.status !== 201) throw new Error(`creating a probe tenant answered ${res.status}`);
        probes.push({ counted, ...(await res.json()).tenant, sent: [], made: 0 });
      }
    }
    const check = (slug) =>
      fetch(`${node.url}/v1/check`, { method: 'POST', headers: { authorization: `Bearer ${serviceKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ tenant: slug, endpoint: 'GET /v1/items' }) });
    // The node enforces the rule set with the probes (each answers 200, not 404) before the measurement starts; those
    // 200s are decisions too, counted in `made`.
    const warmUntil = Date.now() + 30_000;
    for (const p of probes) {
      for (let r = await check(p.slug); r.status !== 200; r = await check(p.slug)) {
        if (Date.now() > warmUntil) throw new Error(`a probe's check answered ${r.status}: ${(await r.text()).slice(0, 200)}`);
        await sleep(100);
      }
      p.made += 1;
    }
    const watcher = new pg.Client({ connectionString: databaseUrl });
    await watcher.connect();
    const since = new Date(Date.now() - 120_000);
    const ids = probes.map((p) => p.id);
    const countsNow = async () => new Map((await watcher.query('select tenant_id::text as id, sum(decisions)::int as n from usage_minute where tenant_id = any($1::uuid[]) and bucket >= $2 group by 1', [ids, since])).rows.map((r) => [r.id, r.n]));
    const lags = { redis: [], node: [] };
    let stopWatching = false;
    const watching = (async () => {
      try {
        while (!stopWatching || probes.some((p) => p.sent.length > 0)) {
          const counts = await countsNow();
          const at = Date.now();
          for (const p of probes) {
            while (p.sent.length > 0 && (counts.get(p.id) ?? 0) >= p.sent[0].n) lags[p.counted].push((at - p.sent.shift().at) / 1000);
          }
          await sleep(100);
        }
      } finally {
        await watcher.end();
      }
    })();
    const started = Date.now();
    for (let i = 0; Date.now() - started < LIVE_S * 1000; i += 1) {
      const p = probes[i % probes.length];
      const at = Date.now();
      const res = await check(p.slug);
      await res.text();
      p.made += 1;
      p.sent.push({ at, n: p.made });
      await sleep(500 + Math.random() * 1000);
    }
    const waitUntil = Date.now() + 90_000;
    while (probes.some((p) => p.sent.length > 0) && Date.now() < waitUntil) await sleep(200);
    stopWatching = true;
    const missing = probes.reduce((n, p) => n + p.sent.length, 0);
    for (const p of probes) p.sent.length = 0;
    await watching;
    // How many of the worker's rollup runs wrote the open minute (its last 100 completed jobs, BullMQ's own keys).
    const jobs = [];
    for (const id of await redis.zrange('{tollgate}:usage:completed', 0, -1)) {
      const [name, value, processedOn] = await redis.hmget(`{tollgate}:usage:${id}`, 'name', 'returnvalue', 'processedOn');
      if (name === 'usage-rollup' && Number(processedOn) >= started) jobs.push(JSON.parse(value));
    }
    return {
      seconds: LIVE_S,
      redis: summary(lags.redis),
      node: summary(lags.node),
      missing,
      runs: jobs.length,
      liveRuns: jobs.filter((j) => j.liveMinutes > 0).length,
      closedRuns: jobs.filter((j) => j.minutes > 0).length,
    };
  } finally {
    node.child.kill('SIGTERM');
    await stopWorker();
  }
}

// ---- the run -----------------------------------------------------------------------------------------------------

const redis = new Redis(redisUrl);
let results;
try {
  await redis.flushdb();
  await freshDemoDatabase(databaseUrl);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const only = process.env.BENCH_PARTS?.split(',') ?? ['lag', 'api'];
    results = {
      machine: machine(),
      lag: only.includes('lag') ? await rollupLag(db, redis) : null,
      api: only.includes('api') ? await apiLatency(db) : null,
      live: only.includes('live') ? await liveLag(db, redis) : null,
    };
  } finally {
    await db.end();
  }
} finally {
  await redis.flushdb().catch(() => undefined);
  redis.disconnect();
  await ownRedis?.stop();
}

if (!markdown) {
  console.log(JSON.stringify(results, null, 2));
} else {
  const { lag, api, live, machine: m } = results;
  const lines = [`Machine: ${m.cpu}, ${m.memoryGiB} GiB, Node ${m.node}, Redis ${m.redis}, ${m.date}.`, ''];
  if (lag) {
    lines.push(
      `**Rollup lag**, ${fmt(lag.tenants)} active tenants × 3 policies, ${lag.minutes} minutes (${fmt(lag.rowsPerMinute)} minute rows a minute): decision → Postgres p50 ${fmt(lag.lagP50, 1)} s, **p95 ${fmt(lag.lagP95, 1)} s** (goal ≤ 90 s), max ${fmt(lag.lagMax, 1)} s; an instant rollup at the end of the grace period would give p95 ${fmt(lag.baselineP95, 1)} s (**${fmt(lag.lagP95 / lag.baselineP95, 2)}×**). Each minute was in Postgres ${lag.rollupAfterGrace.map((s) => `${fmt(s, 1)} s`).join(', ')} after its grace period ended, and rolled up as closed ${lag.finalAfterGrace.map((s) => `${fmt(s, 1)} s`).join(', ')} after it. Decisions counted in Postgres: ${fmt(lag.decisionsCounted)} of ${fmt(lag.decisionsWritten)} written.`,
      '',
    );
  }
  if (api) {
    const row = (label, x, goal = '') => `| ${label} | ${x.n} | ${fmt(x.p50, 1)} | ${fmt(x.p95, 1)} | ${fmt(x.max, 1)} | ${fmt(x.p95 / api.baseline.p95, 2)}× | ${goal} |`;
    lines.push(
      `**Usage API**, seeded ${fmt(api.seeded.tenants)} tenants × ${api.seeded.days} days (${fmt(api.seeded.m)} minute, ${fmt(api.seeded.h)} hour, ${fmt(api.seeded.d)} day rows; seeded in ${fmt(api.seeded.seedSeconds)} s), one API node, requests one at a time:`,
      '',
      '| request | n | p50 ms | p95 ms | max ms | p95 vs baseline | goal |',
      '|---|---:|---:|---:|---:|---:|---|',
      row('baseline: `GET /v1/admin/tenants?pageSize=50`', api.baseline),
      row('one tenant, 24 h (hours)', api.tenant24h, 'p95 ≤ 100 ms'),
      row('one tenant, 6 h (minutes)', api.tenant6h),
      row('every tenant, 30 days (days)', api.all30d),
      row('top tenants / policies / limits by denied, 30 days', api.top30d, 'p95 ≤ 1 s'),
    );
  }
  if (live) {
    const row = (label, x, bound) => `| ${label} | ${x.n} | ${fmt(x.p50, 1)} | ${fmt(x.p95, 1)} | ${fmt(x.max, 1)} | ${bound} s | ${fmt(x.p95 / bound, 2)}× / ${fmt(x.max / bound, 2)}× |`;
    lines.push(
      `**Live usage lag**, ${live.seconds} s of single checks (one API node, the worker's defaults): check sent → its tenant's minute rows in Postgres hold it. ${live.liveRuns} of the worker's ${live.runs} rollup runs in that time wrote the open minute (${live.closedRuns} rolled a closed minute up). Decisions not in Postgres 90 s after the last check: ${live.missing}.`,
      '',
      '| counted | n | p50 s | p95 s | max s | documented bound (+ the write\'s own time) | p95 / max vs bound |',
      '|---|---:|---:|---:|---:|---:|---:|',
      row('by the limit script, in Redis', live.redis, 10),
      row("in the API node's memory (refused)", live.node, 15),
    );
  }
  console.log(lines.join('\n'));
}
