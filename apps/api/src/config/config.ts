import { CLIENT_ADDRESS_SECRET_MIN_LENGTH, loadConfig, regionEnv, regionIssues, regionOf, TENANT_CAP_MAX, parseTrustProxy, trustProxySchema } from '@tollgate/domain';
import { retentionOf, usageRetentionEnv } from '@tollgate/usage';
import { logFormatEnv, redisClusterNodesEnv, redisSentinelEnv, redisSentinelIssues, redisTargetOf, shutdownEnv } from '@tollgate/nest-infra';
import { webhookSharedConfig, webhookSharedEnv } from '@tollgate/webhooks';
import { z } from 'zod';
import { DEFAULT_ENTRY_KEYS, parseEntryKeys } from '../modules/check/rls/rls-mapping';

const port = z.coerce.number().int().min(1).max(65_535);
const ms = z.coerce.number().int().min(1).max(3_600_000);

/** Every environment variable the API reads, with defaults that work on a developer machine (`.env.example` lists each). */
export const apiEnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  API_HOST: z.string().min(1).default('0.0.0.0'),
  API_PORT: port.default(3000),
  API_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(10_485_760).default(65_536),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).default('postgresql://postgres@127.0.0.1:5432/tollgate'),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
  /** Seeds of a Redis Cluster (`host:port,…`); unset: `REDIS_URL` is one server (or the primary REDIS_SENTINELS name). REDIS_URL's credentials and TLS apply to every node. */
  REDIS_CLUSTER_NODES: redisClusterNodesEnv,
  /** A primary with replicas under Redis Sentinel: the sentinels, the master's name, their credentials and TLS (REDIS_URL: the data nodes' credentials, database and TLS). */
  ...redisSentinelEnv,
  REDIS_COMMAND_TIMEOUT_MS: ms.default(500),
  RULES_POLL_MS: ms.default(1000),
  /** How often each node makes sure Redis holds the newest committed rule set (and on every reconnection to Redis). */
  RULES_RECONCILE_MS: z.coerce.number().int().min(100).max(3_600_000).default(2000),
  /** A decision that Redis has not answered within this many ms is decided by the policy's failure mode. */
  DECISION_DEADLINE_MS: ms.default(50),
  /** After this many script calls in a row failed on Redis, stop asking it (the circuit opens)… */
  BREAKER_FAILURES: z.coerce.number().int().min(1).max(1000).default(5),
  /** …for this many ms; then one decision tries Redis again. */
  BREAKER_COOLDOWN_MS: ms.default(1000),
  /**
   * Whether a fixed window also reads the counter earlier versions kept (`…:<window start ms>`) and keeps it in step
   * once an earlier node made it, so that API nodes of the previous version and this one see each other's charges
   * during a rolling upgrade (docs/adr/0024-every-key-the-limit-script-touches-is-declared.md). `false` once every
   * API node runs this version (it saves a key in one `MGET` a fixed window).
   */
  FIXED_WINDOW_EARLIER_COUNTERS: z.enum(['true', 'false']).default('true'),
  /**
   * Checks of a policy with `replicaAck` are answered from Redis only once this many replicas hold their writes
   * (`WAIT`), waiting at most REPLICA_ACK_TIMEOUT_MS (within DECISION_DEADLINE_MS); else the failure mode answers.
   */
  REPLICA_ACK_REPLICAS: z.coerce.number().int().min(1).max(16).default(1),
  REPLICA_ACK_TIMEOUT_MS: z.coerce.number().int().min(1).max(10_000).default(20),
  /** Connections of those checks (`WAIT` blocks a connection until it returns: calls on one wait for each other). */
  REPLICA_ACK_CONNECTIONS: z.coerce.number().int().min(1).max(64).default(4),
  /**
   * REGION (this deployment's) and REGIONS (every region's name, in order): a policy with `regionScope: global` is one
   * quota across them, each region admitting its allowance on its own Redis (docs/adr/0025-one-quota-across-regions.md).
   */
  ...regionEnv,
  /** Failure mode of checks that match no endpoint policy: open (pass, degraded), closed (503) or local. */
  DEFAULT_FAILURE_MODE: z.enum(['open', 'closed', 'local']).default('open'),
  /** The `local` failure mode allows each node this share of a limit: limit ÷ nodes (at least 1). */
  LOCAL_FAILOVER_NODES: z.coerce.number().int().min(1).max(10_000).default(1),
  /** While Redis does not decide checks, one log line per cause this often with how many it touched (OutageReporter). */
  OUTAGE_LOG_EVERY_MS: z.coerce.number().int().min(100).max(3_600_000).default(10_000),
  SESSION_TTL_HOURS: z.coerce.number().int().min(1).max(720).default(12),
  /** Sign-in attempts in a row per account and client address before each one makes the next wait (1 s, 2 s, 4 s, …). */
  LOGIN_FAILURES_BEFORE_DELAY: z.coerce.number().int().min(1).max(1000).default(5),
  /** The longest such wait. */
  LOGIN_MAX_DELAY_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
  LOGIN_ATTEMPTS_PER_MINUTE_PER_ADDRESS: z.coerce.number().int().min(1).max(1_000_000).default(30),
  /**
   * Webhook deliveries a tenant's users may ask for by hand (docs/reliability.md#self-service-abuse): a test or a resend
   * is one, a replay one per event it sends again (at most this many a call). A token bucket per tenant.
   */
  WEBHOOK_SENDS_PER_MINUTE_PER_TENANT: z.coerce.number().int().min(1).max(100_000).default(10),
  /** The same for each operator (user or operator key), on the admin routes. */
  WEBHOOK_SENDS_PER_MINUTE_PER_OPERATOR: z.coerce.number().int().min(1).max(1_000_000).default(1000),
  /** Changes of a tenant's own webhook endpoints (create, edit, delete, rotate) per minute, by its users. */
  WEBHOOK_CHANGES_PER_MINUTE_PER_TENANT: z.coerce.number().int().min(1).max(100_000).default(30),
  /** The most webhook endpoints a tenant may have, unless an operator gives it another cap. */
  WEBHOOK_ENDPOINTS_PER_TENANT: z.coerce.number().int().min(0).max(TENANT_CAP_MAX).default(10),
  /** The most alert rules about one tenant, unless an operator gives it another cap. */
  ALERT_RULES_PER_TENANT: z.coerce.number().int().min(0).max(TENANT_CAP_MAX).default(50),
  /** Whether every decision is counted into usage (docs/adr/0015-usage-counting-and-rollups.md); false only to measure without. */
  USAGE_COUNTING: z.enum(['true', 'false']).default('true'),
  /** How often a node adds the decisions it made without Redis (degraded, refused) to usage. */
  USAGE_FLUSH_MS: ms.default(5_000),
  /** Denials sampled into a tenant's stream of recent denials, at most this many a second per node (0: none). */
  USAGE_DENIAL_SAMPLES_PER_S: z.coerce.number().int().min(0).max(10_000).default(10),
  /**
   * The most routes counted under their own name per tenant and minute; the rest are counted as route `other` (paths
   * with ids in them would otherwise make a hash field and a row per id). Enforced by the scripts that write the counts.
   */
  USAGE_ROUTES_PER_TENANT_MINUTE: z.coerce.number().int().min(0).max(10_000).default(100),
  /** What the worker keeps (the same variables): a range is read at a step whose rows are still there. */
  ...usageRetentionEnv,
  /** Shared with the dashboard, which signs the browser's address with it (docs/adr/0011-sign-in-throttling.md). Unset: no address is believed. */
  CLIENT_ADDRESS_SECRET: z.union([z.literal(''), z.string().min(CLIENT_ADDRESS_SECRET_MIN_LENGTH)]).default(''),
  /**
   * Proxies in front of the API whose X-Forwarded-For is believed: a number of hops (`1` = the gateway) or a
   * comma-separated list of addresses/CIDRs (`10.0.0.0/8,127.0.0.1`). Empty: none (the TCP peer is the client).
   */
  TRUST_PROXY: trustProxySchema,
  /** Forward-auth: the header of the original request that holds the tenant's API key (`Authorization: Bearer` also works). */
  FORWARD_AUTH_KEY_HEADER: z.string().min(1).default('x-api-key'),
  /** Forward-auth: the header of the original request that names the subject (default: the client's address). */
  FORWARD_AUTH_SUBJECT_HEADER: z.string().default(''),
  /** Forward-auth: the gateway's own header carrying its service key (the client's Authorization passes through). */
  FORWARD_AUTH_SERVICE_KEY_HEADER: z.string().min(1).default('x-tollgate-key'),
  /** Forward-auth: the status of a denial (nginx's auth_request needs 401 or 403; `?deny_status=` overrides). */
  FORWARD_AUTH_DENY_STATUS: z.coerce.number().int().min(400).max(499).default(429),
  /**
   * Forward-auth: the one place the original method and URI are read from — X-Forwarded-Method/-Uri, X-Original-
   * Method/-URI, or this request's own method and path after the route (Envoy's path_prefix). Never "whichever is
   * present": a header the gateway does not set is the client's to invent.
   */
  FORWARD_AUTH_ORIGINAL: z.enum(['x-forwarded', 'x-original', 'path']).default('x-forwarded'),
  /**
   * Envoy's rate limit service (gRPC `ShouldRateLimit`) on a listener of its own: a port (`0`: any free one), or empty:
   * not served (docs/adr/0026-envoy-rate-limit-service-over-grpc.md).
   */
  GRPC_PORT: z
    .string()
    .default('')
    .refine((v) => v === '' || (/^\d{1,5}$/.test(v) && Number(v) <= 65_535), 'a port (0-65535), or empty for no gRPC listener'),
  /** Where the gRPC listener binds (with GRPC_PORT). */
  GRPC_HOST: z.string().min(1).default('0.0.0.0'),
  /** TLS of the gRPC listener: PEM files of its certificate (chain) and private key, both or neither (neither: plaintext HTTP/2). */
  GRPC_TLS_CERT: z.string().default(''),
  GRPC_TLS_KEY: z.string().default(''),
  /**
   * What each descriptor entry key names, `entry_key:role,…` with role one of tenant (slug), key (the tenant's API key),
   * method, path, endpoint (`METHOD /path`), subject, ip (the client's address).
   */
  RLS_ENTRY_KEYS: z
    .string()
    .default(DEFAULT_ENTRY_KEYS)
    .superRefine((v, ctx) => {
      try {
        parseEntryKeys(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
      }
    }),
  /** Whether a request's `domain` is the tenant's slug when no entry names the tenant (false: the domain is not read). */
  RLS_DOMAIN_IS_TENANT: z.enum(['true', 'false']).default('false'),
  /** An entry key RLS_ENTRY_KEYS does not name: skipped (`ignore`), or the request is INVALID_ARGUMENT (`refuse`). */
  RLS_UNKNOWN_ENTRIES: z.enum(['ignore', 'refuse']).default('ignore'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ...logFormatEnv,
  /**
   * `/metrics` names every tenant and its traffic, so it is never open to whoever reaches the API: it needs this
   * token (`Authorization: Bearer …`), or is served on a listener of its own (`METRICS_PORT`), or both; with
   * neither it is not served.
   */
  METRICS_TOKEN: z
    .string()
    .default('')
    .refine((v) => v === '' || /^[\x21-\x7e]{16,256}$/.test(v), '16 to 256 printable characters without spaces'),
  /** `/metrics` on a port of its own (and not on the API's), e.g. on a private interface; empty: on the API's port. */
  METRICS_PORT: z
    .string()
    .default('')
    .refine((v) => v === '' || (/^\d{1,5}$/.test(v) && Number(v) >= 1 && Number(v) <= 65_535), 'a port (1-65535), or empty for the API port'),
  /** Where the metrics listener binds (with METRICS_PORT). */
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** Whether decisions are counted per tenant (label `tenant`); false: the label is `-` (one series per policy, not per tenant). */
  METRICS_TENANT_LABEL: z.enum(['true', 'false']).default('true'),
  /** Webhook secrets' encryption keys and the destinations allowed although not public (the worker reads the same). */
  ...webhookSharedEnv,
  /** The longest a SIGTERM or SIGINT takes to end the process (requests in flight may finish meanwhile). */
  ...shutdownEnv,
})
  .superRefine(redisSentinelIssues)
  .superRefine(regionIssues)
  .superRefine((e, ctx) => {
    if ((e.GRPC_TLS_CERT === '') !== (e.GRPC_TLS_KEY === '')) ctx.addIssue({ code: 'custom', path: ['GRPC_TLS_CERT'], message: 'GRPC_TLS_CERT and GRPC_TLS_KEY go together' });
  });

export function loadApiConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(apiEnvSchema, env, (e) => ({
    env: e.NODE_ENV,
    http: { host: e.API_HOST, port: e.API_PORT, bodyLimitBytes: e.API_BODY_LIMIT_BYTES, trustProxy: parseTrustProxy(e.TRUST_PROXY) },
    forwardAuth: {
      keyHeader: e.FORWARD_AUTH_KEY_HEADER.toLowerCase(),
      subjectHeader: e.FORWARD_AUTH_SUBJECT_HEADER.toLowerCase() || null,
      serviceKeyHeader: e.FORWARD_AUTH_SERVICE_KEY_HEADER.toLowerCase(),
      denyStatus: e.FORWARD_AUTH_DENY_STATUS,
      original: e.FORWARD_AUTH_ORIGINAL,
    },
    database: { url: e.DATABASE_URL },
    redis: { ...redisTargetOf(e), commandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS },
    rules: { pollMs: e.RULES_POLL_MS, reconcileMs: e.RULES_RECONCILE_MS },
    region: regionOf(e),
    limiter: { earlierCounters: e.FIXED_WINDOW_EARLIER_COUNTERS === 'true', replicaAck: { replicas: e.REPLICA_ACK_REPLICAS, timeoutMs: e.REPLICA_ACK_TIMEOUT_MS, connections: e.REPLICA_ACK_CONNECTIONS } },
    failover: {
      deadlineMs: e.DECISION_DEADLINE_MS,
      breakerFailures: e.BREAKER_FAILURES,
      breakerCooldownMs: e.BREAKER_COOLDOWN_MS,
      defaultMode: e.DEFAULT_FAILURE_MODE,
      localNodes: e.LOCAL_FAILOVER_NODES,
      logEveryMs: e.OUTAGE_LOG_EVERY_MS,
    },
    sessions: { ttlMs: e.SESSION_TTL_HOURS * 3_600_000 },
    login: {
      failuresBeforeDelay: e.LOGIN_FAILURES_BEFORE_DELAY,
      maxDelayMs: e.LOGIN_MAX_DELAY_SECONDS * 1000,
      perAddressPerMinute: e.LOGIN_ATTEMPTS_PER_MINUTE_PER_ADDRESS,
      clientAddressSecret: e.CLIENT_ADDRESS_SECRET || null,
    },
    selfService: {
      sendsPerMinute: { tenant: e.WEBHOOK_SENDS_PER_MINUTE_PER_TENANT, operator: e.WEBHOOK_SENDS_PER_MINUTE_PER_OPERATOR },
      webhookChangesPerMinute: e.WEBHOOK_CHANGES_PER_MINUTE_PER_TENANT,
      caps: { webhookEndpoints: e.WEBHOOK_ENDPOINTS_PER_TENANT, alertRules: e.ALERT_RULES_PER_TENANT },
    },
    usage: { counting: e.USAGE_COUNTING === 'true', flushMs: e.USAGE_FLUSH_MS, denialSamplesPerSecond: e.USAGE_DENIAL_SAMPLES_PER_S, routesPerTenantMinute: e.USAGE_ROUTES_PER_TENANT_MINUTE, retention: retentionOf(e) },
    log: { level: e.LOG_LEVEL, format: e.LOG_FORMAT },
    webhooks: webhookSharedConfig(e),
    metrics: {
      token: e.METRICS_TOKEN || null,
      listener: e.METRICS_PORT === '' ? null : { host: e.METRICS_HOST, port: Number(e.METRICS_PORT) },
      tenantLabel: e.METRICS_TENANT_LABEL === 'true',
    },
    grpc: {
      listener:
        e.GRPC_PORT === ''
          ? null
          : { host: e.GRPC_HOST, port: Number(e.GRPC_PORT), tls: e.GRPC_TLS_CERT === '' ? null : { certFile: e.GRPC_TLS_CERT, keyFile: e.GRPC_TLS_KEY } },
      mapping: { entryKeys: parseEntryKeys(e.RLS_ENTRY_KEYS), domainIsTenant: e.RLS_DOMAIN_IS_TENANT === 'true', unknownEntries: e.RLS_UNKNOWN_ENTRIES },
    },
    shutdown: { timeoutMs: e.SHUTDOWN_TIMEOUT_MS },
  }));
}

export type ApiConfig = ReturnType<typeof loadApiConfig>;
/** Injection token of the frozen config. */
export const API_CONFIG = Symbol('API_CONFIG');
