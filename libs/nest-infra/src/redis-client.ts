import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { z } from 'zod';

/** One Redis server, or a Redis Cluster: every key Tollgate sends in one command or script shares one hash tag. */
export type RedisClient = Redis | Cluster;

/** Where Redis is: `url` (a single server, or the credentials and TLS of the cluster's nodes) and the cluster's seeds. */
export interface RedisTarget {
  url: string;
  /** Some nodes of a Redis Cluster (`REDIS_CLUSTER_NODES`); empty: `url` is a single server. */
  clusterNodes: readonly { host: string; port: number }[];
}

const HOST_PORT = /^(?<host>[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):(?<port>\d{1,5})$/;

/**
 * `REDIS_CLUSTER_NODES`: comma-separated `host:port` seeds of a Redis Cluster (IPv6 in brackets); the client finds
 * the other nodes from them. Unset or empty: none. Throws on an entry that is not `host:port`.
 */
export function parseClusterNodes(value: string | undefined): { host: string; port: number }[] {
  if (value === undefined || value.trim() === '') return [];
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new Error('REDIS_CLUSTER_NODES holds a control character');
  return value.split(',').map((entry) => {
    const match = HOST_PORT.exec(entry.trim());
    const port = Number(match?.groups?.port);
    if (!match || port < 1 || port > 65_535) throw new Error(`REDIS_CLUSTER_NODES: "${entry.trim()}" is not host:port`);
    return { host: match.groups!.host!.replace(/^\[|\]$/g, ''), port };
  });
}

/**
 * A client of `target` with `options`. For a cluster, the options apply to each node's connection (the credentials
 * and TLS of `url` too), the offline queue and lazy connection to the cluster, and reads go to primaries only: a
 * decision must read what the last one wrote.
 */
export function createRedisClient(target: RedisTarget, options: RedisOptions): RedisClient {
  if (target.clusterNodes.length === 0) return new Redis(target.url, options);
  const { enableOfflineQueue, lazyConnect, retryStrategy, ...nodeOptions } = options;
  const url = new URL(target.url);
  return new Cluster([...target.clusterNodes], {
    scaleReads: 'master',
    lazyConnect: lazyConnect ?? false,
    enableOfflineQueue: enableOfflineQueue ?? true,
    ...(retryStrategy ? { clusterRetryStrategy: (times: number) => retryStrategy(times) ?? null } : {}),
    redisOptions: {
      ...nodeOptions,
      ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
      ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
      ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
    },
  });
}

/** A second connection like `client` (for SUBSCRIBE, which takes a connection for itself), with `options` on top. */
export function duplicateClient(client: RedisClient, options: RedisOptions): RedisClient {
  if (client instanceof Cluster) {
    const { enableOfflineQueue, ...nodeOptions } = options;
    return client.duplicate(undefined, {
      ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
      redisOptions: { ...client.options.redisOptions, ...nodeOptions },
    });
  }
  return client.duplicate(options);
}

/** The `REDIS_CLUSTER_NODES` setting of the API and the worker, parsed (parseClusterNodes). */
export const redisClusterNodesEnv = z
  .string()
  .default('')
  .transform((value, ctx) => {
    try {
      return parseClusterNodes(value);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : String(err) });
      return z.NEVER;
    }
  });
