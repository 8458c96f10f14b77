import { Redis } from 'ioredis';

/** What Redis says of its eviction policy: the one usage and the queues can live with, another, or nothing. */
export type EvictionPolicy = { kind: 'noeviction' } | { kind: 'evicts'; policy: string } | { kind: 'unknown'; reason: string };

/**
 * Reads `maxmemory-policy` with a connection of its own, before the worker takes any job. A Redis that evicts keys
 * under memory pressure would drop usage hashes before they are rolled up and BullMQ's job keys, silently. Managed
 * Redis services often refuse `CONFIG`: then the policy is unknown and the caller decides.
 */
export async function readEvictionPolicy(url: string): Promise<EvictionPolicy> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 5_000, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    const reply = (await redis.config('GET', 'maxmemory-policy')) as string[];
    const policy = reply[1];
    if (policy === undefined) return { kind: 'unknown', reason: 'CONFIG GET maxmemory-policy answered nothing' };
    return policy === 'noeviction' ? { kind: 'noeviction' } : { kind: 'evicts', policy };
  } catch (err) {
    return { kind: 'unknown', reason: err instanceof Error ? err.message : String(err) };
  } finally {
    redis.disconnect();
  }
}
