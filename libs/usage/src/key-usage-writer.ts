import type { Prisma } from '@tollgate/db';
import type { KeyCount } from './fields';
import { isUsageId, storedTenantId } from './ids';

type Tx = Prisma.TransactionClient;

const HOUR_MS = 3_600_000;

/** "No tenant" in the key tables, whose key is not nullable (refused before a tenant was known: an invalid key). */
export const KEY_USAGE_NO_TENANT = '00000000-0000-0000-0000-000000000000';

/** Per tenant (as listed in the minute's set: an id or NO_TENANT), the calls made with each key (by key id). */
export type KeyCountsByTenant = ReadonlyMap<string, ReadonlyMap<string, KeyCount>>;

interface KeyRow {
  keyId: string;
  tenantId: string;
  decisions: number;
  denied: number;
  other: number;
}

/**
 * The per-key part of a minute's write (PostgresUsageWriter.writeMinute, in its transaction): the rows of
 * `key_usage_minute` of each tenant written become exactly what `keys` says for it (absolute values, as for the
 * decisions), the hour that holds the minute follows, and every key used gets the minute as its last use (never moved
 * back). Rows of keys deleted since are not kept; key ids that are not UUIDs are left out.
 *
 * `recompute`: the hour's rows are recomputed from its minutes (every minute of the hour is still kept); otherwise the
 * hour moves by the minute's difference, as the decisions' hours do.
 */
export async function writeKeyMinute(tx: Tx, minuteMs: number, tenants: readonly string[], keys: KeyCountsByTenant, recompute: boolean): Promise<void> {
  const stored = new Set<string>();
  const rows: KeyRow[] = [];
  for (const raw of tenants) {
    const tenantId = storedTenantId(raw);
    if (tenantId === undefined) continue;
    const id = tenantId ?? KEY_USAGE_NO_TENANT;
    stored.add(id);
    for (const [keyId, count] of keys.get(raw) ?? []) {
      if (!isUsageId(keyId)) continue;
      rows.push({ keyId: keyId.toLowerCase(), tenantId: id, ...count });
    }
  }
  if (stored.size === 0) return;
  const tenantIds = [...stored];
  const bucket = new Date(minuteMs);
  const hour = new Date(Math.floor(minuteMs / HOUR_MS) * HOUR_MS);

  const before = await tx.$queryRaw<{ key_id: string; tenant_id: string; decisions: bigint; denied: bigint; other: bigint }[]>`
    SELECT key_id::text, tenant_id::text, decisions, denied, other FROM key_usage_minute
    WHERE bucket = ${bucket} AND tenant_id = ANY(${tenantIds}::uuid[])`;
  if (before.length === 0 && rows.length === 0) return;
  const pair = (keyId: string, tenantId: string) => `${keyId}/${tenantId}`;
  const written = new Set(rows.map((r) => pair(r.keyId, r.tenantId)));
  const vanished = before.filter((r) => !written.has(pair(r.key_id, r.tenant_id)));
  if (vanished.length > 0) {
    await tx.$executeRaw`
      DELETE FROM key_usage_minute m USING unnest(${vanished.map((r) => r.key_id)}::uuid[], ${vanished.map((r) => r.tenant_id)}::uuid[]) AS v(key_id, tenant_id)
      WHERE m.bucket = ${bucket} AND m.key_id = v.key_id AND m.tenant_id = v.tenant_id`;
  }
  const c = columns(rows);
  if (rows.length > 0) {
    // Only keys that still exist: a key deleted since its calls were counted takes its usage with it.
    await tx.$executeRaw`
      INSERT INTO key_usage_minute (bucket, key_id, tenant_id, decisions, denied, other)
      SELECT ${bucket}, u.* FROM unnest(${c.keys}::uuid[], ${c.tenants}::uuid[], ${c.decisions}::bigint[], ${c.denied}::bigint[], ${c.other}::bigint[])
        AS u(key_id, tenant_id, decisions, denied, other)
      WHERE EXISTS (SELECT 1 FROM api_keys k WHERE k.id = u.key_id)
      ON CONFLICT (key_id, bucket, tenant_id) DO UPDATE SET decisions = EXCLUDED.decisions, denied = EXCLUDED.denied, other = EXCLUDED.other
        WHERE (key_usage_minute.decisions, key_usage_minute.denied, key_usage_minute.other)
          IS DISTINCT FROM (EXCLUDED.decisions, EXCLUDED.denied, EXCLUDED.other)`;
  }

  const touched = [...rows.map((r) => [r.keyId, r.tenantId] as const), ...vanished.map((r) => [r.key_id, r.tenant_id] as const)];
  if (recompute) {
    const keyIds = touched.map(([k]) => k);
    const tenantsOf = touched.map(([, t]) => t);
    // The pairs' hours become the sums of their minutes; a pair with no minute left in the hour loses its hour.
    await tx.$executeRaw`
      DELETE FROM key_usage_hour h USING unnest(${keyIds}::uuid[], ${tenantsOf}::uuid[]) AS p(key_id, tenant_id)
      WHERE h.bucket = ${hour} AND h.key_id = p.key_id AND h.tenant_id = p.tenant_id
        AND NOT EXISTS (SELECT 1 FROM key_usage_minute m WHERE m.key_id = p.key_id AND m.tenant_id = p.tenant_id
                        AND m.bucket >= ${hour} AND m.bucket < ${new Date(hour.getTime() + HOUR_MS)})`;
    await tx.$executeRaw`
      INSERT INTO key_usage_hour (bucket, key_id, tenant_id, decisions, denied, other)
      SELECT ${hour}, m.key_id, m.tenant_id, sum(m.decisions)::bigint, sum(m.denied)::bigint, sum(m.other)::bigint
      FROM key_usage_minute m JOIN (SELECT DISTINCT * FROM unnest(${keyIds}::uuid[], ${tenantsOf}::uuid[]) AS p(key_id, tenant_id)) p
        ON m.key_id = p.key_id AND m.tenant_id = p.tenant_id
      WHERE m.bucket >= ${hour} AND m.bucket < ${new Date(hour.getTime() + HOUR_MS)}
      GROUP BY m.key_id, m.tenant_id
      ON CONFLICT (key_id, bucket, tenant_id) DO UPDATE SET decisions = EXCLUDED.decisions, denied = EXCLUDED.denied, other = EXCLUDED.other
        WHERE (key_usage_hour.decisions, key_usage_hour.denied, key_usage_hour.other)
          IS DISTINCT FROM (EXCLUDED.decisions, EXCLUDED.denied, EXCLUDED.other)`;
  } else {
    const difference = new Map<string, KeyRow>();
    const add = (r: KeyRow, sign: 1 | -1) => {
      const sum = difference.get(pair(r.keyId, r.tenantId)) ?? { keyId: r.keyId, tenantId: r.tenantId, decisions: 0, denied: 0, other: 0 };
      sum.decisions += sign * r.decisions;
      sum.denied += sign * r.denied;
      sum.other += sign * r.other;
      difference.set(pair(r.keyId, r.tenantId), sum);
    };
    for (const r of rows) add(r, 1);
    for (const r of before) add({ keyId: r.key_id, tenantId: r.tenant_id, decisions: Number(r.decisions), denied: Number(r.denied), other: Number(r.other) }, -1);
    const changed = [...difference.values()].filter((r) => r.decisions !== 0 || r.denied !== 0 || r.other !== 0);
    if (changed.length > 0) {
      const d = columns(changed);
      await tx.$executeRaw`
        INSERT INTO key_usage_hour (bucket, key_id, tenant_id, decisions, denied, other)
        SELECT ${hour}, u.* FROM unnest(${d.keys}::uuid[], ${d.tenants}::uuid[], ${d.decisions}::bigint[], ${d.denied}::bigint[], ${d.other}::bigint[])
          AS u(key_id, tenant_id, decisions, denied, other)
        WHERE EXISTS (SELECT 1 FROM api_keys k WHERE k.id = u.key_id)
        ON CONFLICT (key_id, bucket, tenant_id) DO UPDATE SET decisions = key_usage_hour.decisions + EXCLUDED.decisions,
          denied = key_usage_hour.denied + EXCLUDED.denied, other = key_usage_hour.other + EXCLUDED.other`;
    }
  }

  // Last use to the minute (the counts do not say when in it). `last_used_at` is a UTC `timestamp(3)`.
  const used = [...new Set(rows.filter((r) => r.decisions + r.other > 0).map((r) => r.keyId))];
  if (used.length > 0) {
    await tx.$executeRaw`
      UPDATE api_keys SET last_used_at = ${bucket.toISOString()}::timestamp(3)
      WHERE id = ANY(${used}::uuid[]) AND (last_used_at IS NULL OR last_used_at < ${bucket.toISOString()}::timestamp(3))`;
  }
}

function columns(rows: KeyRow[]) {
  return {
    keys: rows.map((r) => r.keyId),
    tenants: rows.map((r) => r.tenantId),
    decisions: rows.map((r) => r.decisions),
    denied: rows.map((r) => r.denied),
    other: rows.map((r) => r.other),
  };
}
