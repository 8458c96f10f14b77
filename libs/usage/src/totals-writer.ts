import { Prisma } from '@tollgate/db';

/** A top-N's columns: every decision, those denied, and their cost. */
const SUMS = Prisma.sql`sum(decisions), coalesce(sum(decisions) FILTER (WHERE result = 'denied'), 0), sum(cost)`;

/**
 * Brings the totals over every tenant (`usage_total_minute`, `usage_total_hour`, `usage_total_day`: one row per bucket
 * and result) in line with the per-tenant rows of the minute, the hour and the dates just written, in the writer's
 * transaction (docs/adr/0015-usage-counting-and-rollups.md). Each total is recomputed from its bucket's rows, whichever
 * way those were brought up to date (recomputed, or moved by a difference past the minute retention), so a total is
 * always the sum of what the tenants' rows say. A bucket's rows are read through the index that starts with it: about
 * 60,000 rows a bucket for 10,000 tenants × 3 policies × 2 results.
 */
export async function writeTotals(
  tx: Prisma.TransactionClient,
  minuteMs: number,
  hourStart: number,
  dates: readonly string[],
  tenantIds: readonly string[],
): Promise<void> {
  const minute = new Date(minuteMs);
  const hour = new Date(hourStart);
  await tx.$executeRaw`DELETE FROM usage_total_minute WHERE bucket = ${minute}`;
  await tx.$executeRaw`
    INSERT INTO usage_total_minute (bucket, result, decisions, cost)
    SELECT bucket, result, sum(decisions), sum(cost) FROM usage_minute WHERE bucket = ${minute} GROUP BY bucket, result`;
  await tx.$executeRaw`DELETE FROM usage_total_hour WHERE bucket = ${hour}`;
  await tx.$executeRaw`
    INSERT INTO usage_total_hour (bucket, result, decisions, cost)
    SELECT bucket, result, sum(decisions), sum(cost) FROM usage_hour WHERE bucket = ${hour} GROUP BY bucket, result`;
  const days = [...new Set(dates)];
  if (days.length > 0) {
    await tx.$executeRaw`DELETE FROM usage_total_day WHERE day = ANY(${days}::date[])`;
    await tx.$executeRaw`
      INSERT INTO usage_total_day (day, result, decisions, cost)
      SELECT day, result, sum(decisions), sum(cost) FROM usage_day WHERE day = ANY(${days}::date[]) GROUP BY day, result`;
  }
  await writeSumsByOwner(tx, minute, hour, days, tenantIds);
}

/**
 * The sums per tenant (of the tenants written: no other tenant's rows moved) and per endpoint policy over every tenant
 * (of the whole bucket: any tenant's rows may have moved it) of the minute, the hour and the dates, which a top-N
 * reads instead of every row of its range (`usage_by_tenant_*`, `usage_by_policy_*`).
 */
async function writeSumsByOwner(tx: Prisma.TransactionClient, minute: Date, hour: Date, days: readonly string[], tenantIds: readonly string[]): Promise<void> {
  const ids = [...tenantIds];
  await tx.$executeRaw`DELETE FROM usage_by_tenant_minute WHERE bucket = ${minute} AND tenant_id = ANY(${ids}::uuid[])`;
  await tx.$executeRaw`
    INSERT INTO usage_by_tenant_minute (bucket, tenant_id, decisions, denied, cost)
    SELECT bucket, tenant_id, ${SUMS} FROM usage_minute WHERE bucket = ${minute} AND tenant_id = ANY(${ids}::uuid[]) GROUP BY bucket, tenant_id`;
  await tx.$executeRaw`DELETE FROM usage_by_tenant_hour WHERE bucket = ${hour} AND tenant_id = ANY(${ids}::uuid[])`;
  await tx.$executeRaw`
    INSERT INTO usage_by_tenant_hour (bucket, tenant_id, decisions, denied, cost)
    SELECT bucket, tenant_id, ${SUMS} FROM usage_hour WHERE bucket = ${hour} AND tenant_id = ANY(${ids}::uuid[]) GROUP BY bucket, tenant_id`;
  await tx.$executeRaw`DELETE FROM usage_by_policy_minute WHERE bucket = ${minute}`;
  await tx.$executeRaw`
    INSERT INTO usage_by_policy_minute (bucket, policy_id, decisions, denied, cost)
    SELECT bucket, policy_id, ${SUMS} FROM usage_minute WHERE bucket = ${minute} AND policy_id IS NOT NULL GROUP BY bucket, policy_id`;
  await tx.$executeRaw`DELETE FROM usage_by_policy_hour WHERE bucket = ${hour}`;
  await tx.$executeRaw`
    INSERT INTO usage_by_policy_hour (bucket, policy_id, decisions, denied, cost)
    SELECT bucket, policy_id, ${SUMS} FROM usage_hour WHERE bucket = ${hour} AND policy_id IS NOT NULL GROUP BY bucket, policy_id`;
  if (days.length === 0) return;
  const dayList = [...days];
  await tx.$executeRaw`DELETE FROM usage_by_tenant_day WHERE day = ANY(${dayList}::date[]) AND tenant_id = ANY(${ids}::uuid[])`;
  await tx.$executeRaw`
    INSERT INTO usage_by_tenant_day (day, tenant_id, decisions, denied, cost)
    SELECT day, tenant_id, ${SUMS} FROM usage_day WHERE day = ANY(${dayList}::date[]) AND tenant_id = ANY(${ids}::uuid[]) GROUP BY day, tenant_id`;
  await tx.$executeRaw`DELETE FROM usage_by_policy_day WHERE day = ANY(${dayList}::date[])`;
  await tx.$executeRaw`
    INSERT INTO usage_by_policy_day (day, policy_id, decisions, denied, cost)
    SELECT day, policy_id, ${SUMS} FROM usage_day WHERE day = ANY(${dayList}::date[]) AND policy_id IS NOT NULL GROUP BY day, policy_id`;
}
