import type { Prisma } from '@tollgate/db';
import type { RouteCount } from './fields';
import { storedTenantId } from './ids';
import { KEY_USAGE_NO_TENANT } from './key-usage-writer';

type Tx = Prisma.TransactionClient;

const HOUR_MS = 3_600_000;
/** A route longer than this is not one a check could name (an endpoint is at most 256 bytes): not stored. */
const ROUTE_MAX_CHARS = 1_000;

/** Per tenant (as listed in the minute's set: an id or NO_TENANT), its decisions per route of the minute. */
export type RouteCountsByTenant = ReadonlyMap<string, readonly RouteCount[]>;

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
 * values), and the hour that holds the minute follows — recomputed from its minutes (`recompute`: every minute of the
 * hour is still kept), or moved by the minute's difference. Decisions without a tenant are kept under the nil UUID.
 * Routes holding a NUL character, or longer than any check can name, are left out.
 */
export async function writeRouteMinute(tx: Tx, minuteMs: number, tenants: readonly string[], routes: RouteCountsByTenant, recompute: boolean): Promise<void> {
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

  if (recompute) {
    const t = columns([...rows, ...vanished]);
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
    return;
  }
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
  await tx.$executeRaw`
    INSERT INTO usage_route_hour (bucket, tenant_id, route, result, reason, decisions)
    SELECT ${hour}, u.* FROM unnest(${d.tenants}::uuid[], ${d.routes}::text[], ${d.results}::"UsageResult"[], ${d.reasons}::text[], ${d.decisions}::bigint[])
      AS u(tenant_id, route, result, reason, decisions)
    ON CONFLICT (tenant_id, bucket, route, result, reason) DO UPDATE SET decisions = usage_route_hour.decisions + EXCLUDED.decisions`;
}

function rowKey(r: { tenantId: string; route: string; result: string; reason: string }): string {
  return `${r.tenantId}\u0000${r.route}\u0000${r.result}\u0000${r.reason}`;
}

function columns(rows: RouteRow[]) {
  return {
    tenants: rows.map((r) => r.tenantId),
    routes: rows.map((r) => r.route),
    results: rows.map((r) => r.result),
    reasons: rows.map((r) => r.reason),
    decisions: rows.map((r) => r.decisions),
  };
}
