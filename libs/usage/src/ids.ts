import type { UsageCount } from './fields';
import { NO_TENANT } from './keys';

/**
 * What the rollup reads from Redis is text anyone with write access to Redis could have put there. Postgres keeps
 * tenant and policy ids as UUIDs and reasons as text, so one malformed id or a reason holding a NUL character would
 * fail the whole minute's transaction and stop every later minute behind it. Such counts are left out instead.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `id` is a tenant or policy id as Postgres stores it (a UUID in its usual spelling). */
export function isUsageId(id: string): boolean {
  return UUID.test(id);
}

/** The tenant id a usage row is stored under (lower case), null for NO_TENANT, undefined when it cannot be stored. */
export function storedTenantId(tenantId: string): string | null | undefined {
  if (tenantId === NO_TENANT) return null;
  return isUsageId(tenantId) ? tenantId.toLowerCase() : undefined;
}

/** Whether a count can be stored: its policy id (if any) is a UUID and its reason holds no NUL character. */
export function isStorableCount(count: UsageCount): boolean {
  return (count.policyId === null || isUsageId(count.policyId)) && !count.reason.includes('\u0000');
}
