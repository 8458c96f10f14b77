import { tenantKeyPrefix } from '@tollgate/limiter';

/**
 * The Redis keys of usage, in one place: the contract between the API nodes that count and the worker that rolls up
 * (docs/adr/0015-usage-counting-and-rollups.md).
 *
 *   tg:{<tenant tag>}:u:<minute>     hash: the tenant's counts of one minute (fields: fields.ts)
 *   tg:{<tenant tag>}:denials        stream: a sample of the tenant's recent denials and shadow would-denies
 *   tg:{usage}:tenants:<minute>      set: the tenant ids that may have counts in that minute
 *   tg:{usage}:rolled                string: the last minute rolled up into Postgres
 *   tg:{usage}:counted               string: the time up to which the limit script's counts are in Postgres
 *
 * `<minute>` is the minute's start in epoch seconds. The tenant's keys share the hash tag of its limits' keys (one
 * cluster slot: the limit script writes the hash in the same call that charges them); the `{usage}` keys have a slot
 * of their own and are never written by a script.
 */

/** The tenant id under which decisions without a tenant are counted (a key that matches no tenant). */
export const NO_TENANT = '-';

/** Where a tenant's usage hashes start: the limit script appends the minute (`usagePrefix(t) + minute`). */
export function usagePrefix(tenantId: string): string {
  return `${tenantKeyPrefix(tenantId)}u:`;
}

/** The tenant's usage hash of the minute starting at `minute` (epoch seconds). */
export function usageKey(tenantId: string, minute: number): string {
  return usagePrefix(tenantId) + String(minute);
}

/** The tenant's stream of sampled denials. */
export function denialsKey(tenantId: string): string {
  return `${tenantKeyPrefix(tenantId)}denials`;
}

/** The set of tenant ids that may have counts in the minute starting at `minute`. */
export function activeTenantsKey(minute: number): string {
  return `tg:{usage}:tenants:${minute}`;
}

/** The last minute (epoch seconds) whose counts are in Postgres. */
export const ROLLED_KEY = 'tg:{usage}:rolled';

/**
 * The time (epoch ms, Redis's clock) before which every count the limit script made is in Postgres: the start of the
 * worker's last run that wrote the open minutes, or the end of the last minute rolled up. What is compared with the
 * counts (the sampled would-denies of a shadow preview) is read up to it, so that a sample is never ahead of its count.
 */
export const COUNTED_KEY = 'tg:{usage}:counted';

/** The start (epoch seconds) of the minute that holds `ms` (epoch ms). */
export function minuteOf(ms: number): number {
  return Math.floor(ms / 60_000) * 60;
}

/** How long a usage hash lives after its first write, rolled up or not (a worker away for that long loses it). */
export const USAGE_KEY_TTL_S = 48 * 3600;
/** How long a usage hash lives once rolled up: a rollup run again within it writes the same rows. */
export const USAGE_ROLLED_TTL_S = 3600;
/** How long a minute's set of active tenants lives. */
export const ACTIVE_TENANTS_TTL_S = 48 * 3600;
/** The denial sample stream keeps about this many entries (`XADD … MAXLEN ~`). */
export const DENIAL_SAMPLES_KEPT = 1000;
