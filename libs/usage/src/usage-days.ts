// Which calendar day of each tenant's time zone a minute falls in, for the usage writer's day rows
// (postgres-writer.ts; docs/adr/0015-usage-counting-and-rollups.md).
import { TZDate } from '@date-fns/tz';
import type { Prisma } from '@tollgate/db';
import { addDays, startOfDay } from 'date-fns';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Zone changes this long before a minute or later can shape the day that holds it (a local day is at most 26 h). */
const CHANGES_BEFORE_MS = 2 * DAY_MS;

type Tx = Prisma.TransactionClient;

/** A stretch of time that counts towards a day row: [start, end), and the whole UTC hours inside it. */
export interface DaySpan {
  start: number;
  end: number;
  /** The first hour boundary at or after `start` and the last at or before `end`: [hoursStart, hoursEnd) are whole hours. */
  hoursStart: number;
  hoursEnd: number;
}

/**
 * A tenant's local calendar day that holds the minute: its date and the time it covers. One span (the local day) for
 * a tenant whose zone did not change around it; around a change, the part of each zone's day of the same date that
 * fell under that zone, so that every minute belongs to exactly one day row.
 */
export interface DayWindow {
  day: string;
  /** The earliest start of its spans. */
  start: number;
  spans: DaySpan[];
}

/** The zone a tenant had from `from` (a minute's start, epoch ms) until the next period's. */
interface ZonePeriod {
  from: number;
  zone: string;
}

/**
 * The local day that holds the minute, for each tenant (by stored id; null: no tenant, UTC). Each minute is in the zone
 * the tenant had when it began: a zone changed since (its audit entries) leaves the days before the change where they
 * were, and a tenant deleted since keeps the zone it had. Its last minutes are rolled up after the deletion or change;
 * filed under the new zone's day, recomputed over that zone's whole day, they counted earlier minutes a second time.
 */
export async function tenantDays(tx: Tx, tenantIds: string[], noTenant: boolean, minuteMs: number): Promise<Map<string | null, DayWindow>> {
  const timelines = await zoneTimelines(tx, tenantIds, minuteMs);
  // Time zone arithmetic is slow and a few zones serve many tenants: one window per zone whose tenants did not move.
  const windows = new Map<string, DayWindow>();
  const windowIn = (zone: string): DayWindow => {
    let window = windows.get(zone);
    if (!window) {
      const span = localDay(minuteMs, zone);
      window = { day: span.day, start: span.start, spans: [spanOf(span.start, span.end)] };
      windows.set(zone, window);
    }
    return window;
  };
  const days = new Map<string | null, DayWindow>();
  for (const id of tenantIds) {
    const periods = timelines.get(id) ?? [{ from: Number.NEGATIVE_INFINITY, zone: 'UTC' }];
    days.set(id, periods.length === 1 ? windowIn(periods[0]!.zone) : movedDay(minuteMs, periods));
  }
  if (noTenant) days.set(null, windowIn('UTC'));
  return days;
}

/**
 * The day of a tenant that changed zones: the date the minute has in the zone of its period, made of every part of a
 * period's local days of that same date (within two days of the minute), each cut to its period.
 */
function movedDay(minuteMs: number, periods: ZonePeriod[]): DayWindow {
  const at = periods.findLastIndex((p) => p.from <= minuteMs);
  const { day } = localDay(minuteMs, periods[Math.max(0, at)]!.zone);
  const spans: DaySpan[] = [];
  periods.forEach((period, i) => {
    const from = Math.max(period.from, minuteMs - CHANGES_BEFORE_MS);
    const to = Math.min(periods[i + 1]?.from ?? Number.POSITIVE_INFINITY, minuteMs + CHANGES_BEFORE_MS);
    for (let t = from; t < to; ) {
      const local = localDay(t, period.zone);
      const [start, end] = [Math.max(local.start, period.from), Math.min(local.end, periods[i + 1]?.from ?? Number.POSITIVE_INFINITY)];
      if (local.day === day && start < end) spans.push(spanOf(start, end));
      t = local.end;
    }
  });
  return { day, start: Math.min(...spans.map((s) => s.start)), spans };
}

function spanOf(start: number, end: number): DaySpan {
  const hoursStart = Math.ceil(start / HOUR_MS) * HOUR_MS;
  const hoursEnd = Math.floor(end / HOUR_MS) * HOUR_MS;
  // Shorter than the hours around it (a part of a day cut by a zone change): minutes only.
  if (hoursStart >= hoursEnd) return { start, end, hoursStart: end, hoursEnd: end };
  return { start, end, hoursStart, hoursEnd };
}

/**
 * Each tenant's zones over time, oldest first: the zone it has (`tenants`), or for a tenant deleted since the zone its
 * deletion's audit entry records (the tenant as it was, written in the deletion's transaction), and before that the
 * zones its changes since two days before the minute replaced (`tenant.updated` entries; a change takes effect from
 * the first minute that begins after it). Absent for an id of neither (its days are UTC).
 */
async function zoneTimelines(tx: Tx, tenantIds: string[], minuteMs: number): Promise<Map<string, ZonePeriod[]>> {
  const timelines = new Map<string, ZonePeriod[]>();
  if (tenantIds.length === 0) return timelines;
  const current = await tx.$queryRaw<{ id: string; time_zone: string }[]>`
    SELECT id::text AS id, time_zone FROM tenants WHERE id = ANY(${tenantIds}::uuid[])`;
  const zoneOf = new Map(current.map((z) => [z.id, z.time_zone]));
  const deleted = tenantIds.filter((id) => !zoneOf.has(id));
  if (deleted.length > 0) {
    const kept = await tx.$queryRaw<{ id: string; time_zone: string | null }[]>`
      SELECT DISTINCT ON (entity_id) entity_id AS id, before->>'timeZone' AS time_zone FROM audit_log
      WHERE entity_type = 'tenant' AND action = 'tenant.deleted' AND entity_id = ANY(${deleted}::text[])
      ORDER BY entity_id, id DESC`;
    for (const { id, time_zone } of kept) if (time_zone) zoneOf.set(id, time_zone);
  }
  for (const [id, zone] of zoneOf) timelines.set(id, [{ from: Number.NEGATIVE_INFINITY, zone }]);
  // Through the audit log's index on its time: the changes of the last days, whatever the number of tenants.
  const changes = await tx.$queryRaw<{ id: string; at: Date; before: string | null; after: string | null }[]>`
    SELECT entity_id AS id, created_at AS at, before->>'timeZone' AS before, after->>'timeZone' AS after FROM audit_log
    WHERE created_at >= ${new Date(minuteMs - CHANGES_BEFORE_MS)} AND entity_type = 'tenant' AND action = 'tenant.updated'
      AND before->>'timeZone' IS DISTINCT FROM after->>'timeZone' AND entity_id = ANY(${tenantIds}::text[])
    ORDER BY created_at, id`;
  const moved = new Map<string, typeof changes>();
  for (const change of changes) moved.set(change.id, [...(moved.get(change.id) ?? []), change]);
  for (const [id, list] of moved) {
    const first = list[0]!.before ?? zoneOf.get(id) ?? 'UTC';
    const periods: ZonePeriod[] = [{ from: Number.NEGATIVE_INFINITY, zone: first }];
    for (const change of list) {
      if (!change.after) continue;
      periods.push({ from: Math.ceil(change.at.getTime() / MINUTE_MS) * MINUTE_MS, zone: change.after });
    }
    timelines.set(id, periods);
  }
  return timelines;
}

/** The calendar day of `zone` that holds `ms`; UTC for a zone this runtime does not know. */
function localDay(ms: number, zone: string): { day: string; start: number; end: number } {
  let start: TZDate;
  try {
    start = startOfDay(new TZDate(ms, zone));
    if (Number.isNaN(start.getTime())) throw new RangeError(zone);
  } catch {
    start = startOfDay(new TZDate(ms, 'UTC'));
  }
  const end = addDays(start, 1);
  const day = `${String(start.getFullYear()).padStart(4, '0')}-${String(start.getMonth() + 1).padStart(2, '0')}-${String(start.getDate()).padStart(2, '0')}`;
  return { day, start: start.getTime(), end: end.getTime() };
}
