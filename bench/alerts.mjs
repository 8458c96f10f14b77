#!/usr/bin/env node
// Alert evaluation (docs/adr/0018-alerts.md) for BENCH_TENANTS (10,000) tenants × 3 daily quotas, against the 60 s
// budget (an alert fires within ALERTS_EVALUATE_EVERY_MS, 15 s, plus one evaluation of its condition):
// - quota thresholds: the worker's QuotaEvaluator as it runs in a job: its first run (cold: the rule set read and
//   validated, nothing to record; every tenant at 20-60 %), then with BENCH_CROSSING_SHARE (10 %) of the tenants
//   pushed over 80 % of all three quotas at once (a burst: every crossing recorded, 500 to a transaction), then
//   BENCH_RUNS (5) times with nothing new (the steady state: every limit peeked, the recorded crossings looked up);
// - the 429 rate: the ConditionEvaluator over BENCH_WINDOW_MINUTES (5) minutes of `usage_minute` rows of every tenant
//   × 3 policies × allowed/denied (a rule for everything), BENCH_RUNS times;
// - baseline, in the same run: the bare peeks of the same 30,000 limits, the same 500 tenants in flight, nothing else;
// - end to end: the built worker (its defaults: an evaluation every 15 s) runs on the same data while BENCH_PROBES (5)
//   tenants are pushed over 80 % of their daily quota at moments spread over the interval; lag = from the consume to
//   the alert row in Postgres. The same for a 429 spike written as the near-live rollup writes the open minute (lag to
//   the pending alert: the condition seen; it fires `pendingMinutes` later by design).
// Run: `npx nx run worker:build && node bench/alerts.mjs [--markdown]`. Env: the counts above, BENCH_DATABASE_URL
// (dropped and recreated), BENCH_REDIS_URL (default: a redis-server of the run's own; a database named here is flushed).
import { execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { Redis } from 'ioredis';
import pg from 'pg';
import { startRedisServer } from '../scripts/lib/redis-server.mjs';
import { fmt, freshDatabase, machine, summary } from './lib.mjs';

// The built worker and libs (CommonJS).
const require = createRequire(import.meta.url);
const { QuotaEvaluator } = require('../apps/worker/dist/alerts/quota-thresholds.js');
const { ConditionEvaluator } = require('../apps/worker/dist/alerts/conditions.js');
const { RuleSetSource } = require('../apps/worker/dist/alerts/rule-set-source.js');
const { webhookEvents } = require('../apps/worker/dist/alerts/event-publisher.js');
const { createPrismaClient } = require('@tollgate/db');
const { prepareRules, RedisEngine, systemClock } = require('@tollgate/limiter');
const { createRuleSetVersion } = require('@tollgate/rule-store');
const { toLimitRule } = require('@tollgate/rules');

const TENANTS = Number(process.env.BENCH_TENANTS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const CROSSING_SHARE = Number(process.env.BENCH_CROSSING_SHARE ?? 0.1);
const WINDOW_MINUTES = Number(process.env.BENCH_WINDOW_MINUTES ?? 5);
const PROBES = Number(process.env.BENCH_PROBES ?? 5);
const root = new URL('..', import.meta.url).pathname;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const INTERVAL_MS = 15_000;
const BUDGET_MS = 60_000;
const markdown = process.argv.includes('--markdown');
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/tollgate_bench_alerts';
const ownRedis = process.env.BENCH_REDIS_URL ? undefined : await startRedisServer('tollgate-bench-alerts');
const redisUrl = process.env.BENCH_REDIS_URL ?? ownRedis.url;

/** Three daily quotas: a UTC-aligned day, a calendar day in the tenant's zone, and a smaller epoch day. */
const LIMITS = [
  { name: 'daily', algorithm: 'fixed_window', windowS: 86_400, limit: 10_000, calendar: null },
  { name: 'daily_writes', algorithm: 'fixed_window', windowS: 86_400, limit: 1_000, calendar: 'day' },
  { name: 'exports', algorithm: 'fixed_window', windowS: 86_400, limit: 100, calendar: null },
];
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Asia/Tokyo'];


/** Tenants on one plan with the three limits, a quota rule and a 429-rate rule for everything, and a rule set version. */
async function seed(db, prisma) {
  const plan = (await db.query(`insert into plans (id, slug, name, updated_at) values (gen_random_uuid(), 'bench-alerts', 'bench alerts', now()) returning id`)).rows[0].id;
  for (const l of LIMITS) {
    await db.query(`insert into plan_limits (id, plan_id, name, window_s, "limit", calendar, updated_at) values (gen_random_uuid(), $1, $2, $3, $4, $5, now())`, [plan, l.name, l.windowS, l.limit, l.calendar]);
  }
  const tenants = (
    await db.query(
      `insert into tenants (id, slug, name, time_zone, plan_id, updated_at)
       select gen_random_uuid(), 'bench-' || i, 'Bench ' || i, ($2::text[])[1 + i % array_length($2::text[], 1)], $1, now()
       from generate_series(1, $3) as i returning id, time_zone`,
      [plan, ZONES, TENANTS],
    )
  ).rows;
  await db.query(`insert into alert_rules (id, name, kind, params, updated_at) values (gen_random_uuid(), 'quota', 'quota_threshold', '{"limit":null,"thresholds":[80,100],"notifyReset":false}', now())`);
  await db.query(
    `insert into alert_rules (id, name, kind, params, updated_at) values (gen_random_uuid(), '429', 'denied_rate', $1, now())`,
    [JSON.stringify({ ratePercent: 10, windowMinutes: WINDOW_MINUTES, minDecisions: 100, pendingMinutes: 1, holdMinutes: 5 })],
  );
  await prisma.$transaction((tx) => createRuleSetVersion(tx, 'bench'), { timeout: 120_000 });
  // Usage minutes of every tenant × 3 policies × allowed/denied over the rule's window (the open minute included).
  await db.query(
    `insert into usage_minute (bucket, tenant_id, policy_id, result, reason, decisions, cost)
     select date_trunc('minute', now()) - make_interval(mins => m), t.id, p.id, r.result::"UsageResult", case when r.result = 'denied' then 'daily' else '' end,
            case when r.result = 'denied' then 1 + (hashtext(t.id::text) & 31) else 200 end, 0
     from tenants t cross join generate_series(0, $1 - 1) as m cross join (select gen_random_uuid() as id from generate_series(1, 3)) p
          cross join (values ('allowed'), ('denied')) as r(result)`,
    [WINDOW_MINUTES],
  );
  return tenants;
}

/** Each tenant's three limits as the engine runs them, each prepared once. */
function rulesOf(tenants) {
  return new Map(tenants.map((t) => [t.id, LIMITS.map((l) => prepareRules([toLimitRule({ ...l, calendar: l.calendar ?? undefined }, t.time_zone)]))]));
}

/** The share of each limit tenant `i` is charged to before the burst: 20 to 60 %, under every threshold. */
const shareOf = (i) => 0.2 + (i % 5) * 0.1;

/** Charges each tenant's limits: to `share(i)` of each, minus `from(i)` already charged (one script call per tenant). */
async function charge(engine, tenants, rules, share, from = () => 0) {
  let next = 0;
  const lane = async () => {
    while (next < tenants.length) {
      const i = next++;
      const t = tenants[i];
      await Promise.all(LIMITS.map((l, j) => engine.consume({ tenantId: t.id, cost: Math.max(1, Math.floor(l.limit * share(i)) - Math.floor(l.limit * from(i))), rules: rules.get(t.id)[j] })));
    }
  };
  await Promise.all(Array.from({ length: 200 }, lane));
}

/** The baseline: the same peeks the evaluator makes (whole capacity, one tenant's in one call, 500 tenants in flight). */
async function barePeeks(engine, tenants, rules) {
  let next = 0;
  const lane = async () => {
    while (next < tenants.length) {
      const t = tenants[next++];
      await Promise.all(LIMITS.map((l, j) => engine.peek({ tenantId: t.id, cost: l.limit, rules: rules.get(t.id)[j] })));
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: 500 }, lane));
  return performance.now() - started;
}

/**
 * End-to-end lag with the built worker running: each probe takes a tenant not yet alerted, pushes it over 80 % of
 * `daily` (a quota spike) or writes a minute of 50 % denials for it (a 429 spike), and polls Postgres for its alert.
 */
async function endToEnd(db, engine, tenants, firstFree) {
  const worker = spawn(process.execPath, ['apps/worker/dist/main.js'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, LOG_LEVEL: 'warn', NODE_ENV: 'production' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const quotaLag = [];
  const rateLag = [];
  try {
    // Until the worker has evaluated at least once (its evaluations overlap nothing the probes change), then an interval.
    await sleep(5_000);
    await sleep(INTERVAL_MS);
    // Quota probes: tenants charged to 20 % of each limit, not in the burst (60 % more crosses 80 %); 429 probes: tenants
    // with no 429 alert.
    const quotaProbes = tenants.filter((_, i) => i >= firstFree && i % 5 === 0).slice(0, PROBES);
    const rateProbes = (
      await db.query(`select id from tenants where id not in (select tenant_id from alerts where kind = 'denied_rate' and tenant_id is not null) order by id limit $1`, [PROBES])
    ).rows;
    const until = async (sql, args) => {
      for (;;) {
        if ((await db.query(sql, args)).rows.length > 0) return;
        await sleep(100);
      }
    };
    for (let i = 0; i < PROBES; i += 1) {
      const t = quotaProbes[i];
      const l = LIMITS[0];
      await sleep(Math.random() * INTERVAL_MS);
      const at = performance.now();
      await engine.consume({ tenantId: t.id, cost: Math.floor(l.limit * 0.6), rules: prepareRules([toLimitRule({ ...l, calendar: undefined }, t.time_zone)]) });
      await until(`select 1 from alerts where tenant_id = $1 and kind = 'quota_threshold'`, [t.id]);
      quotaLag.push(performance.now() - at);

      const r = rateProbes[i];
      await sleep(Math.random() * INTERVAL_MS);
      const rateAt = performance.now();
      await db.query(
        `insert into usage_minute (bucket, tenant_id, policy_id, result, reason, decisions, cost) values (date_trunc('minute', now()), $1, gen_random_uuid(), 'denied', 'daily', 5000, 0)`,
        [r.id],
      );
      await until(`select 1 from alerts where tenant_id = $1 and kind = 'denied_rate'`, [r.id]);
      rateLag.push(performance.now() - rateAt);
    }
  } finally {
    worker.kill('SIGTERM');
    await new Promise((r) => worker.on('exit', r));
  }
  return { quota: summary(quotaLag), rate: summary(rateLag) };
}

async function timed(fn) {
  const started = performance.now();
  const result = await fn();
  return { ms: performance.now() - started, result };
}

async function main() {
  const info = machine();
  const load = loadavg().map((n) => n.toFixed(2)).join(' ');
  const uptime = execFileSync('uptime').toString().trim();
  await freshDatabase(databaseUrl);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const prisma = createPrismaClient(databaseUrl, { poolSize: 4 });
  const redis = new Redis(redisUrl);
  if (process.env.BENCH_REDIS_URL) await redis.flushdb();
  try {
    const seeding = await timed(() => seed(db, prisma));
    const tenants = seeding.result;
    const engine = new RedisEngine(redis);
    const rules = rulesOf(tenants);
    await charge(engine, tenants, rules, shareOf);
    const quota = new QuotaEvaluator(prisma, engine, new RuleSetSource(prisma), webhookEvents(systemClock), systemClock);
    const conditions = new ConditionEvaluator(prisma, webhookEvents(systemClock), systemClock);

    // Cold: the worker's first run (the rule set read and validated, the watched limits made), nothing to record.
    const cold = await timed(() => quota.run());
    // The burst: CROSSING_SHARE of the tenants pushed to 85 % of each limit at once.
    const crossing = Math.round(tenants.length * CROSSING_SHARE);
    await charge(engine, tenants.slice(0, crossing), rules, () => 0.85, shareOf);
    const burst = await timed(() => quota.run());
    await barePeeks(engine, tenants, rules); // warm-up of the baseline's own path
    // The baseline and the steady evaluation in turn, so that both see the same moments of a shared machine.
    const baseline = [];
    const steady = [];
    for (let i = 0; i < RUNS; i += 1) {
      baseline.push(await barePeeks(engine, tenants, rules));
      steady.push((await timed(() => quota.run())).ms);
    }
    const rate = [];
    for (let i = 0; i < RUNS; i += 1) rate.push((await timed(() => conditions.run())).ms);

    const e2e = await endToEnd(db, engine, tenants, crossing);
    const s = summary(steady);
    const b = summary(baseline);
    const r = summary(rate);
    const worst = Math.max(cold.ms, burst.ms, s.max) + r.max;
    const results = {
      machine: info,
      loadBefore: load,
      uptime,
      tenants: TENANTS,
      limits: TENANTS * LIMITS.length,
      seedingMs: Math.round(seeding.ms),
      cold: { ms: Math.round(cold.ms), fired: cold.result.fired },
      burst: { ms: Math.round(burst.ms), crossingTenants: crossing, fired: burst.result.fired, peeked: burst.result.peeked },
      steady: s,
      barePeeks: b,
      ratio: s.p50 / b.p50,
      deniedRate: r,
      worstLagMs: Math.round(INTERVAL_MS + worst),
      endToEnd: e2e,
      budgetMs: BUDGET_MS,
    };
    if (markdown) {
      console.log(`| what (${fmt(TENANTS)} tenants × 3 limits) | p50 | p95 | max |`);
      console.log('|---|---|---|---|');
      console.log(`| quota evaluation, steady (${RUNS} runs) | ${fmt(s.p50)} ms | ${fmt(s.p95)} ms | ${fmt(s.max)} ms |`);
      console.log(`| quota evaluation, burst (${fmt(crossing)} tenants × 3 limits newly over 80 %: ${fmt(burst.result.fired)} alerts) | ${fmt(burst.ms)} ms | | |`);
      console.log(`| quota evaluation, cold (the first run of a worker: rule set read, nothing to record) | ${fmt(cold.ms)} ms | | |`);
      console.log(`| baseline: the bare peeks of the same limits | ${fmt(b.p50)} ms | ${fmt(b.p95)} ms | ${fmt(b.max)} ms |`);
      console.log(`| 429 rate over ${WINDOW_MINUTES} minutes of usage_minute (${fmt(TENANTS * 3 * 2 * WINDOW_MINUTES)} rows) | ${fmt(r.p50)} ms | ${fmt(r.p95)} ms | ${fmt(r.max)} ms |`);
      console.log(`| end to end, quota: consume → alert row, built worker (${PROBES} probes) | ${fmt(e2e.quota.p50)} ms | ${fmt(e2e.quota.p95)} ms | ${fmt(e2e.quota.max)} ms |`);
      console.log(`| end to end, 429 rate: minute row → alert row (${PROBES} probes) | ${fmt(e2e.rate.p50)} ms | ${fmt(e2e.rate.p95)} ms | ${fmt(e2e.rate.max)} ms |`);
      console.log(`\nsteady / baseline: ${(s.p50 / b.p50).toFixed(2)}×; worst lag: ${fmt(INTERVAL_MS)} ms interval + ${fmt(worst)} ms = ${fmt(INTERVAL_MS + worst)} ms of the ${fmt(BUDGET_MS)} ms budget`);
      console.log(`machine: ${info.cpu}, ${info.memoryGiB} GiB, Node ${info.node}, Redis ${info.redis}, ${info.date}; load before: ${load}`);
    } else {
      console.log(JSON.stringify(results, null, 2));
    }
  } finally {
    redis.disconnect();
    await prisma.$disconnect();
    await db.end();
    await ownRedis?.stop();
  }
}

await main();
