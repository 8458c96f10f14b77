import type { Prisma } from '@tollgate/db';
import type { RouteCount } from './fields';
import { storedTenantId } from './ids';
import { KEY_USAGE_NO_TENANT } from './key-usage-writer';
import type { DayWindow } from './usage-days';

type Tx = Prisma.TransactionClient;

const HOUR_MS = 3_600_000;
/** A route longer than this is not one a check could name (an endpoint is at most 256 bytes): not stored. */
const ROUTE_MAX_CHARS = 1_000;

/** Per tenant (as listed in the minute's set: an id or NO_TENANT), its decisions per route of the minute. */
export type RouteCountsByTenant = ReadonlyMap<string, readonly RouteCount[]>;

/** How the hour and the tenants' days that hold the minute follow it: recomputed from what they hold, or moved by the difference. */
export interface RouteRecompute {
  /** Every minute of the hour is still kept. */
  hour: boolean;
  /** Every minute of each tenant's day is still kept (the writer's rule for `usage_day`). */
  days: boolean;
}

interface RouteRow {
  tenantId: string;
  route: string;
  result: string;
  reason: string;
  decisions: number;
}

/**
 * The per-route part of a minute's write (PostgresUsageWriter.writeMinute, in its transaction), as writeKeyMinute does
 * for keys: the rows of `usage_route_minute` of each tenant written become exactly what `routes` says for it (absolute
 * values), and the hour and the tenant's day that hold the minute follow, as `usage_hour` and `usage_day` do: the hour
 * recomputed from its minutes, the day from its whole UTC hours and the minutes at its edges (`days`: each tenant's
 * local day of the minute, by stored id, null for no tenant), or either moved by the minute's difference when
 * `recompute` says its minutes may be gone. Decisions without a tenant are kept under the nil UUID. Routes holding a
 * NUL character, or longer than any check can name, are left out.
 */
export async function writeRouteMinute(
  tx: Tx,
  minuteMs: number,
  tenants: readonly string[],
  routes: RouteCountsByTenant,
  days: ReadonlyMap<string | null, DayWindow>,
  recompute: RouteRecompute,
): Promise<void> {
  const stored = new Set<string>();
  const sums = new Map<string, RouteRow>();
  for (const raw of tenants) {
    const tenantId = storedTenantId(raw);
    if (tenantId === undefined) continue;
    const id = tenantId ?? KEY_USAGE_NO_TENANT;
    stored.add(id);
    for (const r of routes.get(raw) ?? []) {
      if (r.route.includes('\u0000') || r.reason.includes('\u0000') || r.route.length > ROUTE_MAX_CHARS) continue;
      const row = { tenantId: id, route: r.route, result: r.result, reason: r.reason, decisions: r.decisions };
      const k = rowKey(row);
      const sum = sums.get(k);
      if (sum) sum.decisions += r.decisions;
      else sums.set(k, row);
    }
  }
  if (stored.size === 0) return;
  const rows = [...sums.values()];
  const tenantIds = [...stored];
  const bucket = new Date(minuteMs);
  const hour = new Date(Math.floor(minuteMs / HOUR_MS) * HOUR_MS);
  const hourEnd = new Date(hour.getTime() + HOUR_MS);
  const dayOf = (tenantId: string): DayWindow => days.get(tenantId === KEY_USAGE_NO_TENANT ? null : tenantId)!;

  const before = (
    await tx.$queryRaw<{ tenant_id: string; route: string; result: string; reason: string; decisions: bigint }[]>`
      SELECT tenant_id::text, route, result, reason, decisions FROM usage_route_minute
      WHERE bucket = ${bucket} AND tenant_id = ANY(${tenantIds}::uuid[])`
  ).map((r) => ({ tenantId: r.tenant_id, route: r.route, result: r.result, reason: r.reason, decisions: Number(r.decisions) }));
  if (before.length === 0 && rows.length === 0) return;
  const written = new Set(rows.map(rowKey));
  const vanished = before.filter((r) => !written.has(rowKey(r)));
  if (vanished.length > 0) {
    const v = columns(vanished);
    await tx.$executeRaw`
      DELETE FROM usage_route_minute m USING unnest(${v.tenants}::uuid[], ${v.routes}::text[], ${v.results}::"UsageResult"[], ${v.reasons}::text[]) AS v(tenant_id, route, result, reason)
      WHERE m.bucket = ${bucket} AND m.tenant_id = v.tenant_id AND m.route = v.route AND m.result = v.result AND m.reason = v.reason`;
  }
  if (rows.length > 0) {
    const c = columns(rows);
    await tx.$executeRaw`
      INSERT INTO usage_route_minute (bucket, tenant_id, route, result, reason, decisions)
      SELECT ${bucket}, u.* FROM unnest(${c.tenants}::uuid[], ${c.routes}::text[], ${c.results}::"UsageResult"[], ${c.reasons}::text[], ${c.decisions}::bigint[])
        AS u(tenant_id, route, result, reason, decisions)
      ON CONFLICT (tenant_id, bucket, route, result, reason) DO UPDATE SET decisions = EXCLUDED.decisions
        WHERE usage_route_minute.decisions IS DISTINCT FROM EXCLUDED.decisions`;
  }

  const touched = [...rows, ...vanished];
  if (recompute.hour) {
    const t = columns(touched);
    // The touched rows' hours become the sums of their minutes; a row with no minute left in the hour loses its hour.
    await tx.$executeRaw`
      DELETE FROM usage_route_hour h USING unnest(${t.tenants}::uuid[], ${t.routes}::text[], ${t.results}::"UsageResult"[], ${t.reasons}::text[]) AS p(tenant_id, route, result, reason)
      WHERE h.bucket = ${hour} AND h.tenant_id = p.tenant_id AND h.route = p.route AND h.result = p.result AND h.reason = p.reason
        AND NOT EXISTS (SELECT 1 FROM usage_route_minute m WHERE m.tenant_id = p.tenant_id AND m.route = p.route AND m.result = p.result
                        AND m.reason = p.reason AND m.bucket >= ${hour} AND m.bucket < ${hourEnd})`;
    await tx.$executeRaw`
      INSERT INTO usage_route_hour (bucket, tenant_id, route, result, reason, decisions)
      SELECT ${hour}, m.tenant_id, m.route, m.result, m.reason, sum(m.decisions)::bigint
      FROM usage_route_minute m
        JOIN (SELECT DISTINCT * FROM unnest(${t.tenants}::uuid[], ${t.routes}::text[], ${t.results}::"UsageResult"[], ${t.reasons}::text[]) AS p(tenant_id, route, result, reason)) p
        ON m.tenant_id = p.tenant_id AND m.route = p.route AND m.result = p.result AND m.reason = p.reason
      WHERE m.bucket >= ${hour} AND m.bucket < ${hourEnd}
      GROUP BY m.tenant_id, m.route, m.result, m.reason
      ON CONFLICT (tenant_id, bucket, route, result, reason) DO UPDATE SET decisions = EXCLUDED.decisions
        WHERE usage_route_hour.decisions IS DISTINCT FROM EXCLUDED.decisions`;
  }
  if (recompute.days) await recomputeRouteDays(tx, touched, vanished, dayOf);
  if (recompute.hour && recompute.days) return;

  const difference = new Map<string, RouteRow>();
  const add = (r: RouteRow, sign: 1 | -1) => {
    const k = rowKey(r);
    const sum = difference.get(k) ?? { ...r, decisions: 0 };
    sum.decisions += sign * r.decisions;
    difference.set(k, sum);
  };
  for (const r of rows) add(r, 1);
  for (const r of before) add(r, -1);
  const changed = [...difference.values()].filter((r) => r.decisions !== 0);
  if (changed.length === 0) return;
  const d = columns(changed);
  if (!recompute.hour) {
    await tx.$executeRaw`
      INSERT INTO usage_route_hour (bucket, tenant_id, route, result, reason, decisions)
      SELECT ${hour}, u.* FROM unnest(${d.tenants}::uuid[], ${d.routes}::text[], ${d.results}::"UsageResult"[], ${d.reasons}::text[], ${d.decisions}::bigint[])
        AS u(tenant_id, route, result, reason, decisions)
      ON CONFLICT (tenant_id, bucket, route, result, reason) DO UPDATE SET decisions = usage_route_hour.decisions + EXCLUDED.decisions`;
  }
  if (!recompute.days) {
    const dates = changed.map((r) => dayOf(r.tenantId).day);
    await tx.$executeRaw`
      INSERT INTO usage_route_day (day, tenant_id, route, result, reason, decisions)
      SELECT * FROM unnest(${dates}::date[], ${d.tenants}::uuid[], ${d.routes}::text[], ${d.results}::"UsageResult"[], ${d.reasons}::text[], ${d.decisions}::bigint[])
        AS u(day, tenant_id, route, result, reason, decisions)
      ON CONFLICT (tenant_id, day, route, result, reason) DO UPDATE SET decisions = usage_route_day.decisions + EXCLUDED.decisions`;
  }
}

/**
 * The touched rows' days (each its tenant's local day of the minute) become the sums of the whole UTC hours inside the
 * day and of the minutes at its edges, span by span (a day cut by a zone change: usage-days.ts), as `usage_day` is
 * recomputed. The rows the minute no longer has lose their day first, which the recomputation puts back where other
 * minutes still have them.
 */
async function recomputeRouteDays(tx: Tx, touched: readonly RouteRow[], vanished: readonly RouteRow[], dayOf: (tenantId: string) => DayWindow): Promise<void> {
  if (vanished.length > 0) {
    const v = columns([...vanished]);
    const dates = vanished.map((r) => dayOf(r.tenantId).day);
    await tx.$executeRaw`
      DELETE FROM usage_route_day x USING unnest(${dates}::date[], ${v.tenants}::uuid[], ${v.routes}::text[], ${v.results}::"UsageResult"[], ${v.reasons}::text[])
        AS v(day, tenant_id, route, result, reason)
      WHERE x.day = v.day AND x.tenant_id = v.tenant_id AND x.route = v.route AND x.result = v.result AND x.reason = v.reason`;
  }
  const spans = touched.flatMap((r) => {
    const window = dayOf(r.tenantId);
    return window.spans.map((span) => ({ row: r, day: window.day, ...span }));
  });
  const at = (ms: (s: (typeof spans)[number]) => number) => spans.map((s) => new Date(ms(s)));
  await tx.$executeRaw`
    WITH p AS (
      SELECT DISTINCT * FROM unnest(${spans.map((s) => s.row.tenantId)}::uuid[], ${spans.map((s) => s.row.route)}::text[],
                                    ${spans.map((s) => s.row.result)}::"UsageResult"[], ${spans.map((s) => s.row.reason)}::text[], ${spans.map((s) => s.day)}::date[],
                                    ${at((s) => s.start)}::timestamptz[], ${at((s) => s.end)}::timestamptz[],
                                    ${at((s) => s.hoursStart)}::timestamptz[], ${at((s) => s.hoursEnd)}::timestamptz[])
        AS p(tenant_id, route, result, reason, day, s, e, hs, he)
    ),
    parts AS (
      SELECT p.tenant_id, p.day, p.route, p.result, p.reason, h.decisions
        FROM p JOIN usage_route_hour h ON h.tenant_id = p.tenant_id AND h.route = p.route AND h.result = p.result AND h.reason = p.reason
          AND h.bucket >= p.hs AND h.bucket < p.he
      UNION ALL
      SELECT p.tenant_id, p.day, p.route, p.result, p.reason, m.decisions
        FROM p JOIN usage_route_minute m ON m.tenant_id = p.tenant_id AND m.route = p.route AND m.result = p.result AND m.reason = p.reason
          AND m.bucket >= p.s AND m.bucket < p.hs
      UNION ALL
      SELECT p.tenant_id, p.day, p.route, p.result, p.reason, m.decisions
        FROM p JOIN usage_route_minute m ON m.tenant_id = p.tenant_id AND m.route = p.route AND m.result = p.result AND m.reason = p.reason
          AND m.bucket >= p.he AND m.bucket < p.e
    )
    INSERT INTO usage_route_day (day, tenant_id, route, result, reason, decisions)
    SELECT day, tenant_id, route, result, reason, sum(decisions)::bigint FROM parts
    GROUP BY day, tenant_id, route, result, reason
    ON CONFLICT (tenant_id, day, route, result, reason) DO UPDATE SET decisions = EXCLUDED.decisions
      WHERE usage_route_day.decisions IS DISTINCT FROM EXCLUDED.decisions`;
}

function rowKey(r: { tenantId: string; route: string; result: string; reason: string }): string {
  return `${r.tenantId}\u0000${r.route}\u0000${r.result}\u0000${r.reason}`;
}

function columns(rows: readonly RouteRow[]) {
  return {
    tenants: rows.map((r) => r.tenantId),
    routes: rows.map((r) => r.route),
    results: rows.map((r) => r.result),
    reasons: rows.map((r) => r.reason),
    decisions: rows.map((r) => r.decisions),
  };
}
