// Shared by the failover benchmarks (failover-sentinel.mjs, failover-cluster.mjs): the worker, the steady load of checks
// over the API nodes, the demo plan's limits and policy, the usage Postgres rolled up, and what an event cost the answers.
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fmt, operatorToken, percentile } from './lib.mjs';

export const SERVICE_KEY = 'tg_test_DEMO_ONLY_service_key_not_for_production';
/** The route the load checks; `setEndpointPolicy` gives it a policy of the demo's starter plan. */
export const ENDPOINT = 'GET /v1/items';
const root = new URL('..', import.meta.url).pathname;
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Production timings, `local` with one share per API node, and usage rolled up within seconds. */
export const failoverEnv = (nodes) => ({
  DEFAULT_FAILURE_MODE: 'local',
  LOCAL_FAILOVER_NODES: String(nodes),
  USAGE_FLUSH_MS: '500',
  USAGE_GRACE_S: '2',
  USAGE_ROLLUP_EVERY_MS: '1000',
  USAGE_LIVE_EVERY_MS: '1000',
});

export async function until(probe, timeoutMs = 60_000) {
  const start = performance.now();
  while (!(await probe().catch(() => false))) {
    if (performance.now() - start > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await sleep(20);
  }
}

/** The built worker; its log (warnings and errors) in `log`, a file. */
export function startWorker(env, log) {
  const out = openSync(log, 'w');
  const child = spawn(process.execPath, ['apps/worker/dist/main.js'], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', NODE_ENV: 'production', WORKER_HEALTH_PORT: '', ...env },
    stdio: ['ignore', out, out],
  });
  return { stop: () => new Promise((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', resolve), child.kill('SIGTERM')))) };
}

/** Until the next minute if fewer than `needMs` of this one are left: a round's checks count in one minute. */
export async function roomInMinute(needMs) {
  if (Date.now() % 60_000 > 60_000 - needMs) await sleep(60_500 - (Date.now() % 60_000));
}

/**
 * `lanes` loops of checks over the nodes and `tenants` (slugs) in turn until `done()`, with service key `key` (the
 * demo's, which may check acme alone, unless said); `onAnswer` sees each answer as it comes. Resolves with every answer:
 * node, tenant, start, latency, status, allowed, degraded.
 */
export async function steadyLoad(nodes, { lanes, tenants, key = SERVICE_KEY }, done, onAnswer = () => undefined) {
  const answers = [];
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      for (let i = lane; !done(); i += lanes) {
        const node = i % nodes.length;
        const tenant = tenants[Math.floor(i / nodes.length) % tenants.length];
        const start = performance.now();
        let status = 0;
        let body = {};
        try {
          const res = await fetch(`${nodes[node].url}/v1/check`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ tenant, endpoint: ENDPOINT }),
          });
          status = res.status;
          body = await res.json();
        } catch {
          // counted as an error (status 0)
        }
        const a = { node, tenant, at: start, ms: performance.now() - start, status, allowed: body.allowed === true, degraded: body.degraded === true };
        answers.push(a);
        onAnswer(a);
      }
    }),
  );
  return answers;
}

/** Checks per second over 2 s, after 2 s of warm-up. */
export async function measuredRate(nodes, load) {
  const warmUp = performance.now() + 2_000;
  await steadyLoad(nodes, load, () => performance.now() > warmUp);
  const measured = performance.now() + 2_000;
  return (await steadyLoad(nodes, load, () => performance.now() > measured)).length / 2;
}

async function admin(nodes) {
  const headers = { authorization: `Bearer ${await operatorToken(nodes[0].url)}`, 'content-type': 'application/json' };
  const call = async (method, path, body) => {
    const res = await fetch(`${nodes[0].url}${path}`, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return res.json();
  };
  const starter = (await call('GET', '/v1/admin/plans?q=starter')).items.find((p) => p.slug === 'starter');
  return { call, starter };
}

/** Resolves once every node enforces `version` of the rule set or a newer one. */
async function enforced(nodes, version) {
  for (const node of nodes) await until(async () => (await (await fetch(`${node.url}/health`)).json()).ruleVersion >= version);
}

/** The demo's starter plan: `limit` a minute, and a day that does not run out; resolves once every node enforces it. */
export async function setLimits(nodes, limit) {
  const { call, starter } = await admin(nodes);
  for (const [name, value] of [['minute', limit], ['daily', 100_000_000]]) {
    await call('PATCH', `/v1/admin/plans/${starter.id}/limits/${starter.limits.find((l) => l.name === name).id}`, { limit: value });
  }
  await enforced(nodes, (await call('GET', '/v1/admin/rule-sets/current')).version);
}

/**
 * A policy of the starter plan for ENDPOINT (failure mode `local`, a limit that does not run out: the plan's minute is
 * the one that counts), waiting for a replica (`replicaAck`) or not; resolves once every node enforces it.
 */
export async function setEndpointPolicy(nodes, replicaAck) {
  const { call, starter } = await admin(nodes);
  const [method, pattern] = ENDPOINT.split(' ');
  const existing = (await call('GET', `/v1/admin/policies?planId=${starter.id}`)).items.find((p) => p.method === method && p.pattern === pattern);
  const { ruleVersion } = existing
    ? await call('PATCH', `/v1/admin/policies/${existing.id}`, { replicaAck })
    : await call('POST', '/v1/admin/policies', { planId: starter.id, name: 'items', method, pattern, failureMode: 'local', replicaAck, limits: [{ name: 'minute', windowS: 60, limit: 100_000_000 }] });
  await enforced(nodes, ruleVersion);
}

/**
 * The decisions Postgres's minute `minute` holds for `tenantIds`, once the worker rolled it up (the same for 5 s);
 * `workerLog` is named should it fall short of `atLeast`.
 */
export async function settledUsage(db, tenantIds, minute, atLeast, workerLog) {
  const usage = async () =>
    (await db.query(`select coalesce(sum(decisions), 0)::int as n from usage_minute where tenant_id = any($1::uuid[]) and bucket = to_timestamp($2 / 1000.0)`, [tenantIds, minute])).rows[0].n;
  await sleep(Math.max(0, minute + 60_000 - Date.now()) + 3_500);
  await until(async () => (await usage()) >= atLeast, 90_000).catch(() => console.error(`the minute's usage fell short; the worker's log: ${workerLog}`));
  let last = -1;
  for (let still = 0; still < 5; ) {
    const now = await usage();
    still = now === last ? still + 1 : 0;
    last = now;
    await sleep(1_000);
  }
  return last;
}

/**
 * What an event at `eventAt` (a kill, a slot starting to move) cost the answers of `answers` that `affected`: the
 * degraded ones from the event on (how many, how many allowed, their latency, the last one's end), the degraded ones
 * before it (a missed deadline on a busy machine), what Redis allowed beyond `limit`, and the limit used at the event.
 */
export function eventCost(answers, eventAt, limit, affected = () => true) {
  const mine = answers.filter(affected);
  const degraded = mine.filter((a) => a.degraded && a.at >= eventAt);
  const redisAllowed = mine.filter((a) => a.allowed && !a.degraded && a.status === 200).length;
  const ms = degraded.map((a) => a.ms);
  return {
    degraded: degraded.length,
    degradedAllowed: degraded.filter((a) => a.allowed).length,
    degradedBefore: mine.filter((a) => a.degraded && a.at < eventAt).length,
    gapMs: degraded.length ? Math.max(...degraded.map((a) => a.at + a.ms)) - eventAt : 0,
    degradedP50: degraded.length ? percentile(ms, 50) : 0,
    degradedP99: degraded.length ? percentile(ms, 99) : 0,
    degradedMax: degraded.length ? Math.max(...ms) : 0,
    redisAllowed,
    overAdmitted: redisAllowed - limit,
    usedAtEvent: mine.filter((a) => a.at < eventAt && a.allowed && !a.degraded).length,
  };
}

/** The table cells of `eventCost`'s figures: degraded (allowed), the last one, latency, limit used, over-admission. */
export const costCells = (r, limit) => ({
  degraded: `${fmt(r.degraded)} (${fmt(r.degradedAllowed)})`,
  gap: `${fmt(r.gapMs)} ms`,
  latency: `${fmt(r.degradedP50, 1)} / ${fmt(r.degradedP99, 1)} / ${fmt(r.degradedMax, 1)} ms`,
  used: `${fmt(r.usedAtEvent)} of ${fmt(limit)}`,
  over: r.overAdmitted < 0 ? `not reached (${fmt(r.redisAllowed)})` : fmt(r.overAdmitted),
});

/** The 1-minute load average, for the results' honesty about the machine. */
export const load1 = () => loadavg()[0];
