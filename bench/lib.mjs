// Shared by the benchmarks: machine facts, timing loops, and the results file.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import { cpus, totalmem } from 'node:os';

export function machine() {
  const redis = execFileSync('redis-server', ['--version']).toString().match(/v=(\S+)/)?.[1] ?? '?';
  return {
    cpu: `${cpus()[0]?.model ?? '?'} × ${cpus().length}`,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    redis,
    date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
  };
}

/** Runs `op` with `inFlight` concurrent loops for `ms`; returns operations per second. */
export async function throughput(op, { inFlight = 64, ms = 5_000, warmupMs = 1_000 } = {}) {
  const runFor = async (duration) => {
    let count = 0;
    const end = performance.now() + duration;
    await Promise.all(
      Array.from({ length: inFlight }, async (_, worker) => {
        let i = worker;
        while (performance.now() < end) {
          await op(i);
          i += inFlight;
          count += 1;
        }
      }),
    );
    return count;
  };
  await runFor(warmupMs);
  const start = performance.now();
  const count = await runFor(ms);
  return count / ((performance.now() - start) / 1000);
}

export const fmt = (n, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const root = new URL('..', import.meta.url).pathname;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Drops and recreates `databaseUrl` (migrated) and seeds the demo into it, as `npm start` does. */
/** The database of `databaseUrl` dropped and created again by the migrations, empty. */
export async function freshDatabase(databaseUrl) {
  const { default: pg } = await import('pg');
  const { migrate } = await import('../scripts/db/migrate.mjs');
  const name = new URL(databaseUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: Object.assign(new URL(databaseUrl), { pathname: '/postgres' }).toString() });
  await admin.connect();
  await admin.query(`drop database if exists "${name.replaceAll('"', '""')}" with (force)`);
  await admin.end();
  await migrate(databaseUrl, () => undefined);
}

export async function freshDemoDatabase(databaseUrl) {
  await freshDatabase(databaseUrl);
  await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['prisma/seed.ts'], { cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: 'ignore' });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the seed exited ${code}`))));
  });
}

/** `n` API processes of the built app on free ports; resolves once each answers /health 200. */
export async function startApiNodes(n, env) {
  const { freePort } = await import('../scripts/lib/redis-server.mjs');
  const nodes = [];
  for (let i = 0; i < n; i += 1) {
    const port = await freePort();
    const child = spawn(process.execPath, ['apps/api/dist/main.js'], {
      cwd: root,
      env: { ...process.env, API_PORT: String(port), API_HOST: '127.0.0.1', LOG_LEVEL: 'warn', NODE_ENV: 'production', ...env },
      stdio: 'ignore',
    });
    nodes.push({ url: `http://127.0.0.1:${port}`, child });
  }
  for (const node of nodes) {
    for (let i = 0; ; i += 1) {
      try {
        if ((await fetch(`${node.url}/health`)).status === 200) break;
      } catch {
        // starting
      }
      if (i > 900) throw new Error('an API node did not start within 90 s');
      await sleep(100);
    }
  }
  return nodes;
}

/** The `p`th percentile (nearest rank) of `xs`. */
export function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

/** p50, p95 and max of times in ms, with how many there were. */
export const summary = (times) => ({ n: times.length, p50: percentile(times, 50), p95: percentile(times, 95), max: Math.max(...times) });

/** Signs in to the API as the demo operator (prisma/demo.ts); returns the bearer token. */
export async function operatorToken(apiUrl) {
  const res = await fetch(`${apiUrl}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@tollgate.local', password: 'tollgate-demo' }) });
  if (res.status !== 200) throw new Error(`the demo operator's sign-in answered ${res.status}`);
  return (await res.json()).token;
}

/**
 * Tenants (time zones in turn) and 3 policy ids each, inserted in bulk; `db` a connected pg client. On a plan of their
 * own, or `planId`; slugs `slugPrefix` + `from`, `from + 1`, …
 */
export async function seedTenants(db, n, { planId, slugPrefix = 'bench-', from = 1 } = {}) {
  const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Asia/Tokyo'];
  const plan = planId ?? (await db.query(`insert into plans (id, slug, name, updated_at) values (gen_random_uuid(), 'bench-usage-' || substr(md5(random()::text), 1, 8), 'bench usage', now()) returning id`)).rows[0].id;
  const rows = await db.query(
    `insert into tenants (id, slug, name, time_zone, plan_id, updated_at)
     select gen_random_uuid(), $4 || i, 'Bench ' || i, ($2::text[])[1 + i % array_length($2::text[], 1)], $1, now()
     from generate_series($5::int, $5::int + $3::int - 1) as i order by i returning id, slug`,
    [plan, zones, n, slugPrefix, from],
  );
  return rows.rows.map((r) => ({ id: r.id, slug: r.slug, policies: [randomUUID(), randomUUID(), randomUUID()] }));
}

/**
 * Usage history as the worker would have rolled it up, for `tenants` new tenants over the last `days` days: hour and
 * day rows (2 policies — a third of the tenant-hours without a policy — × allowed/denied), and minute rows of the
 * last 6 hours. Returns the tenants, the rows' counts and how long it took.
 */
export async function seedUsageHistory(db, { tenants: n, days }) {
  const tenants = await seedTenants(db, n);
  const ids = tenants.map((t) => t.id);
  const policies = tenants.map((t) => t.policies[0]);
  const started = performance.now();
  await db.query(
    `insert into usage_hour (bucket, tenant_id, policy_id, result, reason, decisions, cost)
     select h, t.id, case when p = 0 then null else t.policy end, r::"UsageResult", case when r = 'denied' then 'minute' else '' end,
            (100 + (random() * 900)::int), 0
     from unnest($1::uuid[], $2::uuid[]) as t(id, policy)
     cross join generate_series(date_trunc('hour', now()) - make_interval(days => $3), date_trunc('hour', now()), interval '1 hour') as h
     cross join generate_series(0, 1) as p
     cross join unnest(array['allowed', 'denied']) as r
     order by h`,
    [ids, policies, days],
  );
  await db.query(
    `insert into usage_day (day, tenant_id, policy_id, result, reason, decisions, cost)
     select (bucket at time zone 'UTC')::date, tenant_id, policy_id, result, reason, sum(decisions), sum(cost)
     from usage_hour group by 1, 2, 3, 4, 5 order by 1`,
  );
  await db.query(
    `insert into usage_minute (bucket, tenant_id, policy_id, result, reason, decisions, cost)
     select m, t.id, t.policy, r::"UsageResult", case when r = 'denied' then 'minute' else '' end, (1 + (random() * 20)::int), 0
     from unnest($1::uuid[], $2::uuid[]) as t(id, policy)
     cross join generate_series(date_trunc('minute', now()) - interval '6 hours', date_trunc('minute', now()), interval '1 minute') as m
     cross join unnest(array['allowed', 'denied']) as r
     order by m`,
    [ids, policies],
  );
  // The totals over every tenant, as the worker writes them beside the tenants' rows.
  await db.query(
    `insert into usage_total_minute (bucket, result, decisions, cost) select bucket, result, sum(decisions), sum(cost) from usage_minute group by 1, 2;
     insert into usage_total_hour (bucket, result, decisions, cost) select bucket, result, sum(decisions), sum(cost) from usage_hour group by 1, 2;
     insert into usage_total_day (day, result, decisions, cost) select day, result, sum(decisions), sum(cost) from usage_day group by 1, 2`,
  );
  // And per tenant and per endpoint policy, which the top-N read.
  const sums = `sum(decisions), coalesce(sum(decisions) filter (where result = 'denied'), 0), sum(cost)`;
  for (const [granularity, bucket] of [['minute', 'bucket'], ['hour', 'bucket'], ['day', 'day']]) {
    for (const owner of ['tenant', 'policy']) {
      await db.query(
        `insert into usage_by_${owner}_${granularity} (${bucket}, ${owner}_id, decisions, denied, cost)
         select ${bucket}, ${owner}_id, ${sums} from usage_${granularity} where ${owner}_id is not null group by 1, 2 order by 1`,
      );
    }
  }
  // Rows in the order the worker writes them (a bucket's together) and vacuumed, as autovacuum keeps them: a table read
  // right after a bulk insert checks every row's visibility (the top-N's sums took 110 ms instead of 23 that way).
  for (const granularity of ['minute', 'hour', 'day']) {
    for (const table of [`usage_${granularity}`, `usage_total_${granularity}`, `usage_by_tenant_${granularity}`, `usage_by_policy_${granularity}`]) {
      await db.query(`vacuum analyze ${table}`);
    }
  }
  const counts = await db.query(`select (select count(*) from usage_minute)::int as m, (select count(*) from usage_hour)::int as h, (select count(*) from usage_day)::int as d`);
  return { tenants, seedSeconds: (performance.now() - started) / 1000, rows: counts.rows[0] };
}

// ---- the HTTP load machinery of bench/enforcement.mjs and bench/capacity.mjs ---------------------------------

/**
 * The load generator (the bench's own process) runs with a young generation of 2 MB semi-spaces. autocannon parses
 * every answer in JavaScript, and with V8's default (a young generation that grows to 32 MB semi-spaces under this
 * load) this process's young-generation collections copied 15–20 MB of survivors and stopped it for 20–40 ms, 4–8
 * times in a 6 s run: every answer in flight then was timed that much late, all 64 connections at once, whichever
 * server sent it. Those pauses were the slowest 1 % of the runs (session 6, BENCHMARKS.md), and more of them fell on
 * the servers whose answers are larger (Tollgate's, with its rate-limit headers, cost the parser more than the bare
 * route's 38 bytes). With small semi-spaces the pauses are 1–3 ms (at most ~10). The servers keep V8's defaults: only
 * the bench re-runs itself with the flag. Its GC pauses during each measured window are reported (`clientGc`).
 */
export const LOAD_GENERATOR_FLAG = '--max-semi-space-size=2';

/** This process's GC pauses (ms), as they happen; `load` keeps those of its measured window. */
const clientGcPauses = [];

/**
 * Call first thing in a bench script (`import.meta.url`): re-runs it with `LOAD_GENERATOR_FLAG` unless it has it
 * (the parent then exits with the child's status), and starts watching this process's GC pauses.
 */
export async function asLoadGenerator(scriptUrl) {
  if (!process.execArgv.includes(LOAD_GENERATOR_FLAG)) {
    const { fileURLToPath } = await import('node:url');
    const again = spawnSync(process.execPath, [...process.execArgv, LOAD_GENERATOR_FLAG, fileURLToPath(scriptUrl), ...process.argv.slice(2)], { stdio: 'inherit' });
    process.exit(again.status ?? 1);
  }
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) clientGcPauses.push({ at: entry.startTime, ms: entry.duration });
  }).observe({ entryTypes: ['gc'] });
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

const CLOCK_TICK_US = 10_000; // /proc/<pid>/stat counts CPU time in ticks of 1/100 s (USER_HZ on Linux)

/** CPU time (user + system) a process has used, in µs. */
export function cpuMicros(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_US; // utime, stime
}

/** A process's resident memory (VmRSS), in MiB. */
export function rssMiB(pid) {
  const kb = Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1] ?? Number.NaN);
  return kb / 1024;
}

/** Script calls (EVALSHA and EVAL) a Redis server has run, from `INFO commandstats`. */
export async function scriptCalls(redis) {
  const stats = await redis.info('commandstats');
  return [...stats.matchAll(/cmdstat_(?:evalsha|eval):calls=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
}

/** CPU time (user + system) a Redis server has used, in µs, from `INFO cpu`. */
export async function redisCpuMicros(redis) {
  const info = await redis.info('cpu');
  const get = (k) => Number(info.match(new RegExp(`${k}:([\\d.]+)`))[1]);
  return (get('used_cpu_sys') + get('used_cpu_user')) * 1e6;
}

/**
 * A free port of 127.0.0.1: the kernel's pick, or one in `BENCH_PORTS` (`40000-42999`: a range agreed with whoever
 * else runs on the machine), tried at random.
 */
export async function benchPort() {
  const range = process.env.BENCH_PORTS?.match(/^(\d+)-(\d+)$/);
  const { freePort } = await import('../scripts/lib/redis-server.mjs');
  if (!range) return freePort();
  const { createServer } = await import('node:net');
  const [lo, hi] = [Number(range[1]), Number(range[2])];
  for (let i = 0; i < 200; i += 1) {
    const port = lo + Math.floor(Math.random() * (hi - lo + 1));
    const free = await new Promise((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`no free port in BENCH_PORTS=${process.env.BENCH_PORTS}`);
}

const launched = [];

/** Starts `node <args>` as its own process; keeps the tail of its output for error messages. */
export function launch(name, args, env, { ipc = false, cwd = root } = {}) {
  const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe', ...(ipc ? ['ipc'] : [])] });
  const proc = { name, child, output: '' };
  const keep = (chunk) => (proc.output = (proc.output + chunk.toString()).slice(-4000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  launched.push(proc);
  return proc;
}

/** Stops (SIGTERM, SIGKILL after 5 s) every process `launch` started. */
export async function stopLaunched() {
  await Promise.all(
    launched.map(async ({ child }) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }),
  );
}

/** Waits until `probe()` is true (30 s at most), failing with the process's output should it exit first. */
export async function until(proc, probe, what) {
  for (let i = 0; i < 300; i += 1) {
    if (proc.child.exitCode !== null) throw new Error(`${proc.name} exited ${proc.child.exitCode}:\n${proc.output}`);
    try {
      if (await probe()) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`${proc.name}: ${what} not within 30 s:\n${proc.output}`);
}

/** Every answer must be an admission decided on Redis (Tollgate answers `degraded` when Redis did not decide in time). */
export const admitted = (body) => body.includes('"allowed":true') && !body.includes('"degraded"');

/** Answers of an autocannon run that were not a 2xx admission (non-2xx, errors, timeouts, refused by `admitted`). */
export const failures = (r) => r.non2xx + r.errors + r.timeouts + r.mismatches;

/**
 * autocannon on `target` (`url`, `path`, `key`, `bodies`: the JSON bodies sent in turn) for `warmup` + `duration`
 * seconds on the same connections (64): as fast as it answers, or (`rate`) that many requests per second across
 * them. Only the answers completed in the last `duration` seconds are measured (`window`): a run that opens its
 * connections starts with a burst of slow answers (64 connections at once, each one's first request), a transient
 * of the load generator that would otherwise be a sizeable part of the slowest 1 % in a run of seconds.
 * `atWindow()` runs when the window opens (counters read then). Correctness (errors, timeouts, answers that were
 * not admissions) counts over the whole run.
 */
export async function load(target, { warmup, duration, rate, connections = 64, atWindow = () => undefined }) {
  const { default: autocannon } = await import('autocannon');
  const latencies = [];
  let opened = Infinity;
  let ok = 0;
  let notAdmitted = 0;
  // How late this process's own event loop ran during the window: autocannon's clock starts and stops in it, so an
  // answer that arrives while it is held up (the two CPUs busy with the server and Redis) is timed late.
  const clientDelay = monitorEventLoopDelay({ resolution: 1 });
  const instance = autocannon({
    url: target.url,
    connections,
    duration: warmup + duration,
    ...(rate ? { overallRate: rate } : {}),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${target.key}` },
    requests: target.bodies.map((body) => ({ method: 'POST', path: target.path, body })),
    // Called right after the answer's 'response' event, for the same answer.
    verifyBody: (body) => {
      const fine = admitted(body);
      if (!fine && performance.now() >= opened) notAdmitted += 1;
      return fine;
    },
  });
  instance.on('response', (client, status, bytes, ms) => {
    if (performance.now() < opened) return;
    latencies.push(ms);
    if (status >= 200 && status < 300) ok += 1;
  });
  const timer = setTimeout(async () => {
    await atWindow();
    opened = performance.now();
    clientDelay.enable();
  }, warmup * 1000);
  const gcBefore = clientGcPauses.length;
  const r = await instance;
  clearTimeout(timer);
  clientDelay.disable();
  const gc = clientGcPauses.splice(gcBefore).filter((p) => p.at >= opened);
  const windowSeconds = (performance.now() - opened) / 1000;
  if (!(windowSeconds > 0)) throw new Error(`${target.id}: the measured window never opened`);
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return {
    r,
    window: {
      seconds: windowSeconds,
      answers: latencies.length,
      requestsPerSecond: latencies.length / windowSeconds,
      // Admissions decided on Redis: a degraded answer (the API's circuit open) skips Redis and is not one.
      decidedPerSecond: (ok - notAdmitted) / windowSeconds,
      p50: at(0.5),
      p975: at(0.975),
      p99: at(0.99),
      max: latencies.at(-1),
      clientDelayP99: clientDelay.percentile(99) / 1e6,
      clientDelayMax: clientDelay.max / 1e6,
      clientGcMs: gc.reduce((sum, p) => sum + p.ms, 0),
      clientGcMaxMs: gc.reduce((most, p) => Math.max(most, p.ms), 0),
    },
  };
}
