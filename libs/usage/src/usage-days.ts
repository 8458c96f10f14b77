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

/** The local day that holds the minute, for each tenant (by stored id; null: no tenant, UTC). */
export async function tenantDays(tx: Tx, tenantIds: string[], noTenant: boolean, minuteMs: number): Promise<Map<string | null, DayWindow>> {
  const zones = tenantIds.length === 0
    ? []
    : await tx.$queryRaw<{ id: string; time_zone: string }[]>`SELECT id::text AS id, time_zone FROM tenants WHERE id = ANY(${tenantIds}::uuid[])`;
  const zoneOf = new Map(zones.map((z) => [z.id, z.time_zone]));
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
