import type { Redis } from 'ioredis';
import { hashTagOf, tenantTag } from './keys';

/** Every key of these tenants: one SCAN pass over the limiter's keys (never KEYS on a shared server). */
export async function tenantKeys(redis: Redis, tenantIds: readonly string[]): Promise<string[]> {
  const tags = new Set(tenantIds.map(tenantTag));
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', 'tg:{*', 'COUNT', 1000);
    cursor = next;
    keys.push(...batch.filter((key) => tags.has(hashTagOf(key) ?? '')));
  } while (cursor !== '0');
  return keys;
}

export async function deleteTenantKeys(redis: Redis, tenantIds: readonly string[]): Promise<void> {
  if (tenantIds.length === 0) return;
  const keys = await tenantKeys(redis, tenantIds);
  if (keys.length > 0) await redis.del(...keys);
}
