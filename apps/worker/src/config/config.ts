import { loadConfig, regionEnv, regionIssues, regionOf } from '@tollgate/domain';
import { retentionOf, usageRetentionEnv } from '@tollgate/usage';
import { logFormatEnv, redisClusterNodesEnv, redisSentinelEnv, redisSentinelIssues, redisTargetOf, shutdownEnv } from '@tollgate/nest-infra';
import { emailConfig, emailEnv, webhookSharedConfig, webhookSharedEnv } from '@tollgate/webhooks';
import { z } from 'zod';

/** Every environment variable the worker reads, with defaults that work on a developer machine (`.env.example` lists each). */
export const workerEnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).default('postgresql://postgres@127.0.0.1:5432/tollgate'),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
  /** Seeds of a Redis Cluster (`host:port,…`); unset: `REDIS_URL` is one server (or the primary REDIS_SENTINELS name). REDIS_URL's credentials and TLS apply to every node. */
  REDIS_CLUSTER_NODES: redisClusterNodesEnv,
  /** A primary with replicas under Redis Sentinel: the sentinels, the master's name, their credentials and TLS (REDIS_URL: the data nodes' credentials, database and TLS). */
  ...redisSentinelEnv,
  /** BullMQ key prefix; a hash tag keeps each queue in one Redis Cluster slot. */
  QUEUE_PREFIX: z.string().regex(/^[A-Za-z0-9:{}_-]+$/).default('{tollgate}'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ...logFormatEnv,
  /** How often the usage rollup runs (each run rolls up every minute that has closed since the last). */
  USAGE_ROLLUP_EVERY_MS: z.coerce.number().int().min(1000).max(3_600_000).default(10_000),
  /** How long after a minute's end the rollup waits for its last counts (API nodes flush every 5 s, clocks differ by up to 5 s). */
  USAGE_GRACE_S: z.coerce.number().int().min(0).max(600).default(15),
  /**
   * How often the minutes not closed yet are written too (0: never), so the dashboard and alerts see the last seconds
   * rather than waiting for the minute and its grace period; each such write is rewritten with the final counts.
   */
  USAGE_LIVE_EVERY_MS: z.coerce.number().int().min(0).max(3_600_000).default(10_000),
  ...usageRetentionEnv,
  ...webhookSharedEnv,
  /** How often an idle worker looks for due webhook deliveries in Postgres (the outbox). */
  WEBHOOK_DISPATCH_EVERY_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
  /** The longest one webhook attempt may take (connect, send, answer). */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000),
  /** Webhook attempts one worker has in flight at once. */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(200).default(10),
  /** The margin of a claim: deliveries stay a worker's for twice the timeout and this (then a killed worker's are retried). */
  WEBHOOK_JOB_LOCK_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  ...emailEnv,
  /** How long webhook attempts (the delivery log) and delivered events are kept. */
  WEBHOOK_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** How often alert rules are evaluated: an alert fires at most this long (plus the evaluation) after its condition holds. */
  ALERTS_EVALUATE_EVERY_MS: z.coerce.number().int().min(1000).max(60_000).default(15_000),
  /** How long resolved alerts are kept. */
  ALERTS_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  /** How often the worker makes sure every job schedule is in Redis (and on every reconnection to Redis). */
  WORKER_SCHEDULES_CHECK_MS: z.coerce.number().int().min(100).max(300_000).default(5_000),
  /** The port of the worker's `GET /health`; empty: not served; 0: any free port (logged). */
  WORKER_HEALTH_PORT: z.union([z.literal(''), z.coerce.number().int().min(0).max(65_535)]).default(3002),
  /** Where that listener binds. */
  WORKER_HEALTH_HOST: z.string().min(1).default('0.0.0.0'),
  /** A job that has not completed for this many of its intervals makes the worker unhealthy (never sooner than 30 s). */
  WORKER_HEALTH_MISSED_RUNS: z.coerce.number().int().min(1).max(1000).default(3),
  ...shutdownEnv,
  /** REGION (this deployment's) and REGIONS (every region's name, in order), as the API reads them (docs/adr/0025-one-quota-across-regions.md). */
  ...regionEnv,
  /**
   * Whether this worker coordinates the quotas across regions (moves allowances between the regions' Redis); empty:
   * when this region is the first of REGIONS. One worker of the installation should.
   */
  REGION_COORDINATOR: z.enum(['', 'true', 'false']).default(''),
  /** The coordinator's way to each region's Redis: `name=redis://host:port,…`, every region of REGIONS named once. */
  REGION_REDIS_URLS: z.string().default(''),
  /** How often the coordinator rebalances every window in force (each region's Redis call times out after half of it). */
  REBALANCE_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
}).superRefine((e, ctx) => {
  redisSentinelIssues(e, ctx);
  regionIssues(e, ctx);
  regionLinkIssues(e, ctx);
  // BullMQ's scripts touch several keys of a queue at once: on a cluster they fail (CROSSSLOT) unless all share a slot.
  if (e.REDIS_CLUSTER_NODES.length > 0 && !hasHashTag(e.QUEUE_PREFIX)) {
    ctx.addIssue({ code: 'custom', path: ['QUEUE_PREFIX'], message: 'must hold a hash tag ({…}, e.g. {tollgate}) on a Redis Cluster, so that each queue stays in one slot' });
  }
});

/** `REGION_REDIS_URLS` as name → URL, in the order written (not validated: regionLinkIssues says what is wrong). */
function parseRegionUrls(value: string): [string, string][] {
  if (value.trim() === '') return [];
  return value.split(',').map((entry) => {
    const at = entry.indexOf('=');
    return at === -1 ? [entry.trim(), ''] : [entry.slice(0, at).trim(), entry.slice(at + 1).trim()];
  });
}

/** Whether this worker coordinates, from valid settings. */
function coordinates(e: { REGION: string; REGIONS: string[]; REGION_COORDINATOR: string }): boolean {
  if (e.REGIONS.length === 0) return false;
  return e.REGION_COORDINATOR === '' ? e.REGIONS[0] === e.REGION : e.REGION_COORDINATOR === 'true';
}

/** What is wrong with the coordinator's settings: each region of REGIONS reachable at a Redis URL, nothing else. */
function regionLinkIssues(e: { REGION: string; REGIONS: string[]; REGION_COORDINATOR: string; REGION_REDIS_URLS: string }, ctx: z.RefinementCtx): void {
  const issue = (message: string) => ctx.addIssue({ code: 'custom', path: ['REGION_REDIS_URLS'], message });
  if (e.REGION_COORDINATOR === 'true' && e.REGIONS.length === 0) ctx.addIssue({ code: 'custom', path: ['REGION_COORDINATOR'], message: 'only with REGION and REGIONS' });
  const urls = parseRegionUrls(e.REGION_REDIS_URLS);
  const named = new Set<string>();
  for (const [name, url] of urls) {
    if (!e.REGIONS.includes(name)) issue(`${JSON.stringify(name.slice(0, 40))} is not one of REGIONS`);
    else if (named.has(name)) issue(`region ${name} is named twice`);
    named.add(name);
    if (!/^rediss?:\/\/[^\s]+$/.test(url) || !URL.canParse(url)) issue(`region ${JSON.stringify(name.slice(0, 40))}: not a redis:// or rediss:// URL`);
  }
  if (!coordinates(e)) return;
  const missing = e.REGIONS.filter((name) => !named.has(name));
  if (missing.length > 0) issue(`the coordinator needs every region's Redis: ${missing.join(', ')} missing (name=redis://host:port,…)`);
}

/** Whether keys starting with `prefix` hash by a tag inside it: Redis hashes the text between the first `{` and the next `}`, if not empty. */
function hasHashTag(prefix: string): boolean {
  const open = prefix.indexOf('{');
  return open >= 0 && prefix.indexOf('}', open + 1) > open + 1;
}

export function loadWorkerConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(workerEnvSchema, env, (e) => ({
    env: e.NODE_ENV,
    database: { url: e.DATABASE_URL },
    redis: { ...redisTargetOf(e) },
    queues: { prefix: e.QUEUE_PREFIX },
    log: { level: e.LOG_LEVEL, format: e.LOG_FORMAT },
    usage: {
      rollupEveryMs: e.USAGE_ROLLUP_EVERY_MS,
      graceS: e.USAGE_GRACE_S,
      liveEveryMs: e.USAGE_LIVE_EVERY_MS,
      retention: retentionOf(e),
    },
    webhooks: {
      ...webhookSharedConfig(e),
      ...emailConfig(e),
      dispatchEveryMs: e.WEBHOOK_DISPATCH_EVERY_MS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      concurrency: e.WEBHOOK_CONCURRENCY,
      lockMs: e.WEBHOOK_JOB_LOCK_MS,
      retentionDays: e.WEBHOOK_RETENTION_DAYS,
    },
    alerts: { evaluateEveryMs: e.ALERTS_EVALUATE_EVERY_MS, retentionDays: e.ALERTS_RETENTION_DAYS },
    schedules: { checkEveryMs: e.WORKER_SCHEDULES_CHECK_MS },
    health: {
      listener: e.WORKER_HEALTH_PORT === '' ? null : { host: e.WORKER_HEALTH_HOST, port: e.WORKER_HEALTH_PORT },
      missedRuns: e.WORKER_HEALTH_MISSED_RUNS,
    },
    shutdown: { timeoutMs: e.SHUTDOWN_TIMEOUT_MS },
    region: regionOf(e),
    coordinator: coordinates(e) ? { regions: parseRegionUrls(e.REGION_REDIS_URLS).map(([name, url]) => ({ name, url })).sort((a, b) => e.REGIONS.indexOf(a.name) - e.REGIONS.indexOf(b.name)), everyMs: e.REBALANCE_MS } : null,
  }));
}

export type WorkerConfig = ReturnType<typeof loadWorkerConfig>;
export const WORKER_CONFIG = Symbol('WORKER_CONFIG');
