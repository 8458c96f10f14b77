import { z } from 'zod';
import { parseHostPorts, type RedisTarget, type SentinelTarget } from './redis-client';

/** A `host:port,…` setting, parsed (parseHostPorts): a clear error names the setting and the entry. */
function hostPortsEnv(name: string) {
  return z
    .string()
    .default('')
    .transform((value, ctx) => {
      try {
        return parseHostPorts(name, value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : String(err) });
        return z.NEVER;
      }
    });
}

/** The `REDIS_CLUSTER_NODES` setting of the API and the worker, parsed (parseClusterNodes). */
export const redisClusterNodesEnv = hostPortsEnv('REDIS_CLUSTER_NODES');

/** Printable text without spaces or control characters (a Sentinel master name, a user name), or empty. */
const printable = (what: string) => z.string().default('').refine((v) => v === '' || /^[\x21-\x7e]{1,256}$/.test(v), `${what}: 1 to 256 printable characters without spaces`);

/** The Sentinel settings of the API and the worker (checked together with REDIS_CLUSTER_NODES by redisSentinelIssues). */
export const redisSentinelEnv = {
  /** Sentinels of a primary with replicas (`host:port,…`); set, the client asks them where the primary is. */
  REDIS_SENTINELS: hostPortsEnv('REDIS_SENTINELS'),
  /** The name the sentinels monitor the primary under (`sentinel monitor <name> …`); required with REDIS_SENTINELS. */
  REDIS_SENTINEL_MASTER: printable('a master name'),
  /** The sentinels' own credentials (`requirepass` / ACL user of the sentinels), if they need any. */
  REDIS_SENTINEL_USERNAME: printable('a user name'),
  REDIS_SENTINEL_PASSWORD: z
    .string()
    .default('')
    // eslint-disable-next-line no-control-regex -- control characters are what this refuses
    .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), 'holds a control character'),
  /** TLS to the sentinels themselves (the primary's and replicas' TLS is REDIS_URL's `rediss:`). */
  REDIS_SENTINEL_TLS: z.enum(['true', 'false']).default('false'),
};

type RedisEnv = {
  REDIS_CLUSTER_NODES: readonly unknown[];
  REDIS_SENTINELS: readonly { host: string; port: number }[];
  REDIS_SENTINEL_MASTER: string;
  REDIS_SENTINEL_USERNAME: string;
  REDIS_SENTINEL_PASSWORD: string;
  REDIS_SENTINEL_TLS: 'true' | 'false';
};

/** What is wrong with the Redis settings together: sentinels without a master name, with a cluster, or settings of sentinels without any. */
export function redisSentinelIssues(e: RedisEnv, ctx: z.RefinementCtx): void {
  const issue = (path: keyof RedisEnv, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (e.REDIS_SENTINELS.length > 0) {
    if (e.REDIS_SENTINEL_MASTER === '') issue('REDIS_SENTINEL_MASTER', 'required with REDIS_SENTINELS: the name the sentinels monitor the primary under');
    if (e.REDIS_CLUSTER_NODES.length > 0) issue('REDIS_SENTINELS', 'a Redis Cluster (REDIS_CLUSTER_NODES) has no sentinels: set one or the other');
    return;
  }
  for (const key of ['REDIS_SENTINEL_MASTER', 'REDIS_SENTINEL_USERNAME', 'REDIS_SENTINEL_PASSWORD'] as const) {
    if (e[key] !== '') issue(key, 'only with REDIS_SENTINELS');
  }
  if (e.REDIS_SENTINEL_TLS === 'true') issue('REDIS_SENTINEL_TLS', 'only with REDIS_SENTINELS');
}

/** Where Redis is, from the validated settings. */
export function redisTargetOf(e: RedisEnv & { REDIS_URL: string; REDIS_CLUSTER_NODES: RedisTarget['clusterNodes'] }): RedisTarget {
  const sentinel: SentinelTarget | null =
    e.REDIS_SENTINELS.length === 0
      ? null
      : {
          sentinels: e.REDIS_SENTINELS,
          master: e.REDIS_SENTINEL_MASTER,
          username: e.REDIS_SENTINEL_USERNAME || null,
          password: e.REDIS_SENTINEL_PASSWORD || null,
          tls: e.REDIS_SENTINEL_TLS === 'true',
        };
  return { url: e.REDIS_URL, clusterNodes: e.REDIS_CLUSTER_NODES, sentinel };
}
