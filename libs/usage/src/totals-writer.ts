import { Prisma } from '@tollgate/db';
import type { UsageStep } from './range';

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

/** The tables of sums per tenant and per endpoint policy, by granularity: written below, read by the top-N, kept by retention. */
export const SUMS_BY_OWNER: ReadonlyMap<'tenant' | 'policy', ReadonlyMap<UsageStep, string>> = new Map([
  ['tenant', new Map([['minute', 'usage_by_tenant_minute'], ['hour', 'usage_by_tenant_hour'], ['day', 'usage_by_tenant_day']])],
  ['policy', new Map([['minute', 'usage_by_policy_minute'], ['hour', 'usage_by_policy_hour'], ['day', 'usage_by_policy_day']])],
]);

/** A row of a minute as the sums per owner count it. */
export interface OwnedCount {
  tenantId: string | null;
  policyId: string | null;
  result: string;
  decisions: number;
  cost: number;
}

interface Sums {
  owner: string;
  day: string;
  decisions: number;
  denied: number;
  cost: number;
}

const OWNERS = [
  { column: 'tenant_id', of: (r: OwnedCount) => r.tenantId, tables: SUMS_BY_OWNER.get('tenant')! },
  { column: 'policy_id', of: (r: OwnedCount) => r.policyId, tables: SUMS_BY_OWNER.get('policy')! },
];

/**
 * Moves the sums per tenant and per endpoint policy (`usage_by_tenant_*`, `usage_by_policy_*`, which a top-N reads)
 * of the minute, its hour and each tenant's local day by what this write changed in the minute: its rows `after`
 * less what the minute held `before` for the same tenants. The hour and the days move by the same difference as the
 * tenants' rows (recomputed or moved), so a sum stays the sum of its bucket's rows; an owner whose counts did not
 * change is not written, and a sum that falls to nothing is deleted.
 */
export async function moveSumsByOwner(
  tx: Prisma.TransactionClient,
  minuteMs: number,
  hourStart: number,
  dayOf: (tenantId: string | null) => string,
  before: readonly OwnedCount[],
  after: readonly OwnedCount[],
): Promise<void> {
  for (const { column, of, tables } of OWNERS) {
    const perDay = new Map<string, Sums>();
    const add = (rows: readonly OwnedCount[], sign: 1 | -1) => {
      for (const r of rows) {
        const owner = of(r);
        if (owner === null) continue;
        const day = dayOf(r.tenantId);
        const key = `${owner} ${day}`;
        const sums = perDay.get(key) ?? { owner, day, decisions: 0, denied: 0, cost: 0 };
        sums.decisions += sign * r.decisions;
        sums.denied += r.result === 'denied' ? sign * r.decisions : 0;
        sums.cost += sign * r.cost;
        perDay.set(key, sums);
      }
    };
    add(after, 1);
    add(before, -1);
    const days = [...perDay.values()].filter((s) => s.decisions !== 0 || s.denied !== 0 || s.cost !== 0);
    if (days.length === 0) continue;
    const perOwner = new Map<string, Sums>();
    for (const s of days) {
      const sums = perOwner.get(s.owner) ?? { ...s, decisions: 0, denied: 0, cost: 0 };
      sums.decisions += s.decisions;
      sums.denied += s.denied;
      sums.cost += s.cost;
      perOwner.set(s.owner, sums);
    }
    const owners = [...perOwner.values()];
    const table = (step: UsageStep) => Prisma.raw(tables.get(step)!);
    await moveBucket(tx, table('minute'), Prisma.raw(column), new Date(minuteMs), owners);
    await moveBucket(tx, table('hour'), Prisma.raw(column), new Date(hourStart), owners);
    await moveDays(tx, table('day'), Prisma.raw(column), days);
  }
}

const columnsOf = (sums: readonly Sums[]) => ({
  owners: sums.map((s) => s.owner),
  decisions: sums.map((s) => s.decisions),
  denied: sums.map((s) => s.denied),
  cost: sums.map((s) => s.cost),
});
const ADD = Prisma.raw('decisions = t.decisions + EXCLUDED.decisions, denied = t.denied + EXCLUDED.denied, cost = t.cost + EXCLUDED.cost');
const NOTHING = Prisma.raw('t.decisions = 0 AND t.denied = 0 AND t.cost = 0');

async function moveBucket(tx: Prisma.TransactionClient, table: Prisma.Sql, column: Prisma.Sql, bucket: Date, sums: readonly Sums[]): Promise<void> {
  const c = columnsOf(sums);
  await tx.$executeRaw`
    INSERT INTO ${table} AS t (bucket, ${column}, decisions, denied, cost)
    SELECT ${bucket}, * FROM unnest(${c.owners}::uuid[], ${c.decisions}::bigint[], ${c.denied}::bigint[], ${c.cost}::bigint[])
    ON CONFLICT (bucket, ${column}) DO UPDATE SET ${ADD}`;
  await tx.$executeRaw`DELETE FROM ${table} t WHERE t.bucket = ${bucket} AND t.${column} = ANY(${c.owners}::uuid[]) AND ${NOTHING}`;
}

async function moveDays(tx: Prisma.TransactionClient, table: Prisma.Sql, column: Prisma.Sql, sums: readonly Sums[]): Promise<void> {
  const c = columnsOf(sums);
  const days = sums.map((s) => s.day);
  await tx.$executeRaw`
    INSERT INTO ${table} AS t (day, ${column}, decisions, denied, cost)
    SELECT * FROM unnest(${days}::date[], ${c.owners}::uuid[], ${c.decisions}::bigint[], ${c.denied}::bigint[], ${c.cost}::bigint[])
    ON CONFLICT (day, ${column}) DO UPDATE SET ${ADD}`;
  await tx.$executeRaw`
    DELETE FROM ${table} t USING unnest(${days}::date[], ${c.owners}::uuid[]) AS v(day, owner)
    WHERE t.day = v.day AND t.${column} = v.owner AND ${NOTHING}`;
}
