// Shared by the benchmarks: machine facts, timing loops, and the results file.
import { execFileSync, spawn } from 'node:child_process';
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
      if (i > 300) throw new Error('an API node did not start');
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

/** Tenants (a plan of their own, time zones in turn) and 3 policy ids each, inserted in bulk; `db` a connected pg client. */
export async function seedTenants(db, n) {
  const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Asia/Tokyo'];
  const plan = (await db.query(`insert into plans (id, slug, name, updated_at) values (gen_random_uuid(), 'bench-usage-' || substr(md5(random()::text), 1, 8), 'bench usage', now()) returning id`)).rows[0].id;
  const rows = await db.query(
    `insert into tenants (id, slug, name, time_zone, plan_id, updated_at)
     select gen_random_uuid(), 'bench-' || i, 'Bench ' || i, ($2::text[])[1 + i % array_length($2::text[], 1)], $1, now()
     from generate_series(1, $3) as i returning id, slug`,
    [plan, zones, n],
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
