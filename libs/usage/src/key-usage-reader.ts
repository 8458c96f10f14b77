import type { PrismaClient } from '@tollgate/db';
import type { KeyCount } from './fields';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** A key's calls over the last 24 hours and the last 30 days. */
export interface KeyUsageSummary {
  last24h: KeyCount;
  last30d: KeyCount;
}

const none = (): KeyCount => ({ decisions: 0, denied: 0, other: 0 });

/**
 * The calls of each key of `keyIds` over the last 24 hours and 30 days before `now`, from `key_usage_hour` (hours
 * that started in the period: the hour `now` is in counts in both), summed over its tenants; zeros for a key with
 * none. One statement for a page of keys.
 */
export async function keyUsageOf(prisma: PrismaClient, keyIds: readonly string[], now = new Date()): Promise<Map<string, KeyUsageSummary>> {
  const summaries = new Map<string, KeyUsageSummary>(keyIds.map((id) => [id, { last24h: none(), last30d: none() }]));
  if (keyIds.length === 0) return summaries;
  const hourNow = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  const dayAgo = new Date(hourNow - 23 * HOUR_MS);
  const monthAgo = new Date(hourNow - 30 * DAY_MS + HOUR_MS);
  const rows = await prisma.$queryRaw<{ key_id: string; d24: bigint; x24: bigint; o24: bigint; d30: bigint; x30: bigint; o30: bigint }[]>`
    SELECT key_id::text,
      coalesce(sum(decisions) FILTER (WHERE bucket >= ${dayAgo}), 0)::bigint AS d24,
      coalesce(sum(denied) FILTER (WHERE bucket >= ${dayAgo}), 0)::bigint AS x24,
      coalesce(sum(other) FILTER (WHERE bucket >= ${dayAgo}), 0)::bigint AS o24,
      sum(decisions)::bigint AS d30, sum(denied)::bigint AS x30, sum(other)::bigint AS o30
    FROM key_usage_hour WHERE key_id = ANY(${[...keyIds]}::uuid[]) AND bucket >= ${monthAgo}
    GROUP BY key_id`;
  for (const r of rows) {
    summaries.set(r.key_id, {
      last24h: { decisions: Number(r.d24), denied: Number(r.x24), other: Number(r.o24) },
      last30d: { decisions: Number(r.d30), denied: Number(r.x30), other: Number(r.o30) },
    });
  }
  return summaries;
}
