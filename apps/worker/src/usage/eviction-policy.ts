import { createRedisClient, type RedisTarget } from '@tollgate/nest-infra';
import { Cluster, type Redis } from 'ioredis';

/** What Redis says of its eviction policy: the one usage and the queues can live with, another, or nothing. */
export type EvictionPolicy = { kind: 'noeviction' } | { kind: 'evicts'; policy: string } | { kind: 'unknown'; reason: string };

/**
 * Reads `maxmemory-policy` with a connection of its own, before the worker takes any job — of every primary of a
 * Redis Cluster, the first that evicts being the answer. A Redis that evicts keys under memory pressure would drop
 * usage hashes before they are rolled up and BullMQ's job keys, silently. Managed Redis services often refuse
 * `CONFIG`: then the policy is unknown and the caller decides.
 */
export async function readEvictionPolicy(target: RedisTarget): Promise<EvictionPolicy> {
  const client = createRedisClient(target, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 5_000, commandTimeout: 5_000, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const servers: Redis[] = client instanceof Cluster ? client.nodes('master') : [client];
    for (const server of servers) {
      const reply = (await server.config('GET', 'maxmemory-policy')) as string[];
      const policy = reply[1];
      if (policy === undefined) return { kind: 'unknown', reason: 'CONFIG GET maxmemory-policy answered nothing' };
      if (policy !== 'noeviction') return { kind: 'evicts', policy };
    }
    return { kind: 'noeviction' };
  } catch (err) {
    return { kind: 'unknown', reason: err instanceof Error ? err.message : String(err) };
  } finally {
    client.disconnect();
  }
}
