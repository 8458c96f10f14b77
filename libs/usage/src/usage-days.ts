// Which calendar day of each tenant's time zone a minute falls in, for the usage writer's day rows
// (postgres-writer.ts; docs/adr/0015-usage-counting-and-rollups.md).
import { TZDate } from '@date-fns/tz';
import type { Prisma } from '@tollgate/db';
import { addDays, startOfDay } from 'date-fns';

const HOUR_MS = 3_600_000;

type Tx = Prisma.TransactionClient;

/** A tenant's local calendar day that holds the minute, and the whole UTC hours inside it. */
export interface DayWindow {
  day: string;
  start: number;
  end: number;
  /** The first hour boundary at or after `start` and the last at or before `end`: [hoursStart, hoursEnd) are whole hours. */
  hoursStart: number;
  hoursEnd: number;
}

/**
 * The local day that holds the minute, for each tenant (by stored id; null: no tenant, UTC). A tenant deleted since
 * keeps the zone it had: its last minutes are rolled up after its deletion, and filed under another zone's date they
 * would be counted a second time beside the local day that already holds its earlier minutes.
 */
export async function tenantDays(tx: Tx, tenantIds: string[], noTenant: boolean, minuteMs: number): Promise<Map<string | null, DayWindow>> {
  const zoneOf = await timeZones(tx, tenantIds);
  // Time zone arithmetic is slow and a few zones serve many tenants: one window per zone.
  const windows = new Map<string, DayWindow>();
  const windowIn = (zone: string): DayWindow => {
    let window = windows.get(zone);
    if (!window) {
      window = dayWindow(minuteMs, zone);
      windows.set(zone, window);
    }
    return window;
  };
  const days = new Map<string | null, DayWindow>();
  for (const id of tenantIds) days.set(id, windowIn(zoneOf.get(id) ?? 'UTC'));
  if (noTenant) days.set(null, windowIn('UTC'));
  return days;
}

/**
 * Each tenant's time zone: from `tenants`, or for a tenant deleted since from its deletion's audit entry (the tenant as
 * it was, written in the deletion's transaction). Absent for an id of neither (then its days are UTC).
 */
async function timeZones(tx: Tx, tenantIds: string[]): Promise<Map<string, string>> {
  if (tenantIds.length === 0) return new Map();
  const zones = await tx.$queryRaw<{ id: string; time_zone: string }[]>`
    SELECT id::text AS id, time_zone FROM tenants WHERE id = ANY(${tenantIds}::uuid[])`;
  const zoneOf = new Map(zones.map((z) => [z.id, z.time_zone]));
  const deleted = tenantIds.filter((id) => !zoneOf.has(id));
  if (deleted.length === 0) return zoneOf;
  const kept = await tx.$queryRaw<{ id: string; time_zone: string | null }[]>`
    SELECT DISTINCT ON (entity_id) entity_id AS id, before->>'timeZone' AS time_zone FROM audit_log
    WHERE entity_type = 'tenant' AND action = 'tenant.deleted' AND entity_id = ANY(${deleted}::text[])
    ORDER BY entity_id, id DESC`;
  for (const { id, time_zone } of kept) if (time_zone) zoneOf.set(id, time_zone);
  return zoneOf;
}

/** The calendar day of `zone` that holds `ms`; UTC for a zone this runtime does not know. */
function dayWindow(ms: number, zone: string): DayWindow {
  let start: TZDate;
  try {
    start = startOfDay(new TZDate(ms, zone));
    if (Number.isNaN(start.getTime())) throw new RangeError(zone);
  } catch {
    start = startOfDay(new TZDate(ms, 'UTC'));
  }
  const end = addDays(start, 1);
  const day = `${String(start.getFullYear()).padStart(4, '0')}-${String(start.getMonth() + 1).padStart(2, '0')}-${String(start.getDate()).padStart(2, '0')}`;
  return {
    day,
    start: start.getTime(),
    end: end.getTime(),
    hoursStart: Math.ceil(start.getTime() / HOUR_MS) * HOUR_MS,
    hoursEnd: Math.floor(end.getTime() / HOUR_MS) * HOUR_MS,
  };
}
