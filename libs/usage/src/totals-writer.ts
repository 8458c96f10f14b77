import type { Prisma } from '@tollgate/db';

/**
 * Brings the totals over every tenant (`usage_total_minute`, `usage_total_hour`, `usage_total_day`: one row per bucket
 * and result) in line with the per-tenant rows of the minute, the hour and the dates just written, in the writer's
 * transaction (docs/adr/0015-usage-counting-and-rollups.md). Each total is recomputed from its bucket's rows, whichever
 * way those were brought up to date (recomputed, or moved by a difference past the minute retention), so a total is
 * always the sum of what the tenants' rows say. A bucket's rows are read through the index that starts with it: about
 * 60,000 rows a bucket for 10,000 tenants × 3 policies × 2 results.
 */
export async function writeTotals(tx: Prisma.TransactionClient, minuteMs: number, hourStart: number, dates: readonly string[]): Promise<void> {
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
  if (days.length === 0) return;
  await tx.$executeRaw`DELETE FROM usage_total_day WHERE day = ANY(${days}::date[])`;
  await tx.$executeRaw`
    INSERT INTO usage_total_day (day, result, decisions, cost)
    SELECT day, result, sum(decisions), sum(cost) FROM usage_day WHERE day = ANY(${days}::date[]) GROUP BY day, result`;
}
