import { Cluster, Redis, type RedisOptions } from 'ioredis';

/** One Redis server, or a Redis Cluster: every key Tollgate sends in one command or script shares one hash tag. */
export type RedisClient = Redis | Cluster;

/** A `host:port` address. */
export interface HostPort {
  host: string;
  port: number;
}

/** A primary with replicas watched by Redis Sentinel: the sentinels to ask where the primary is, and how to reach them. */
export interface SentinelTarget {
  /** `REDIS_SENTINELS`: some of the sentinels; the client learns the others from them. */
  sentinels: readonly HostPort[];
  /** `REDIS_SENTINEL_MASTER`: the name the sentinels monitor the primary under. */
  master: string;
  /** The sentinels' own credentials (`REDIS_SENTINEL_USERNAME` / `_PASSWORD`); null: none. */
  username: string | null;
  password: string | null;
  /** `REDIS_SENTINEL_TLS`: TLS to the sentinels (the data nodes' TLS is `url`'s `rediss:`). */
  tls: boolean;
}

/**
 * Where Redis is: `url` (a single server; or the credentials, database and TLS of a cluster's or a sentinel-watched
 * primary's nodes), the cluster's seeds, or the sentinels that know the primary.
 */
export interface RedisTarget {
  url: string;
  /** Some nodes of a Redis Cluster (`REDIS_CLUSTER_NODES`); empty: `url` is a single server (or sentinels find it). */
  clusterNodes: readonly HostPort[];
  /** Sentinels that name the primary (`REDIS_SENTINELS`); null or absent: no Sentinel. Never with `clusterNodes`. */
  sentinel?: SentinelTarget | null;
}

const HOST_PORT = /^(?<host>[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):(?<port>\d{1,5})$/;

/**
 * A comma-separated list of `host:port` (IPv6 in brackets) in the setting `name`. Unset or empty: none. Throws on an
 * entry that is not `host:port`, and on control characters.
 */
export function parseHostPorts(name: string, value: string | undefined): HostPort[] {
  if (value === undefined || value.trim() === '') return [];
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new Error(`${name} holds a control character`);
  return value.split(',').map((entry) => {
    const match = HOST_PORT.exec(entry.trim());
    const port = Number(match?.groups?.port);
    if (!match || port < 1 || port > 65_535) throw new Error(`${name}: "${entry.trim()}" is not host:port`);
    return { host: match.groups!.host!.replace(/^\[|\]$/g, ''), port };
  });
}

/** `REDIS_CLUSTER_NODES`: the seeds of a Redis Cluster; the client finds the other nodes from them (parseHostPorts). */
export function parseClusterNodes(value: string | undefined): HostPort[] {
  return parseHostPorts('REDIS_CLUSTER_NODES', value);
}

/**
 * A client of `target` with `options`. Under Sentinel, the client asks the sentinels where the primary is, connects
 * only to a node that says it is the primary, and on a failover (the connection lost, or a write refused by a demoted
 * primary) asks again: no restart and no other setting is needed. For a cluster, the options apply to each node's connection (the credentials
 * and TLS of `url` too), the offline queue and lazy connection to the cluster, and reads go to primaries only: a
 * decision must read what the last one wrote.
 */
export function createRedisClient(target: RedisTarget, options: RedisOptions): RedisClient {
  if (target.sentinel) return sentinelClient(target.url, target.sentinel, options);
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
      ...credentialsOf(url),
      ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
    },
  });
}

/** The primary that `sentinel` names, with `url`'s credentials, database and TLS (`rediss:`) for the data nodes. */
function sentinelClient(target: string, sentinel: SentinelTarget, options: RedisOptions): Redis {
  const url = new URL(target);
  const db = Number(url.pathname.slice(1) || 0);
  return new Redis({
    ...options,
    ...credentialsOf(url),
    ...(db ? { db } : {}),
    ...(url.protocol === 'rediss:' ? { tls: {}, enableTLSForSentinelMode: true } : {}),
    sentinels: sentinel.sentinels.map((s) => ({ ...s })),
    name: sentinel.master,
    role: 'master',
    ...(sentinel.username ? { sentinelUsername: sentinel.username } : {}),
    ...(sentinel.password ? { sentinelPassword: sentinel.password } : {}),
    ...(sentinel.tls ? { sentinelTLS: {} } : {}),
    // Not ioredis's failoverDetector: a +switch-master that reaches it while the client is reconnecting (a sentinel that
    // learns of the promotion late) makes the reconnection fail for good ("Connection is closed.", the client ended),
    // which a failover benchmark met in the worker. A promotion closes the old primary's connections anyway: a dead
    // primary's by itself, a demoted one's by the sentinels (CLIENT KILL), and a write refused with READONLY below.
    // A connection to a primary since demoted refuses writes: ask the sentinels again. The refused command was not run,
    // and is not resent (its caller's failure mode answers it).
    reconnectOnError: (err) => err.message.startsWith('READONLY'),
  });
}

function credentialsOf(url: URL): { username?: string; password?: string } {
  return {
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
  };
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
