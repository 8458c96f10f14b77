import { Prisma, type PrismaClient } from '@tollgate/db';
import type { UsageCount } from './fields';
import { isStorableCount, storedTenantId } from './ids';
import { type KeyCountsByTenant, writeKeyMinute } from './key-usage-writer';
import { type RouteCountsByTenant, writeRouteMinute } from './route-usage-writer';
import { moveSumsByOwner, SUMS_BY_OWNER, writeTotals } from './totals-writer';
import { type DayWindow, tenantDays } from './usage-days';
import type { ExpiredUsage, UsageRetention, UsageWriter } from './store';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * Every minute is written under this transaction-scoped advisory lock, one minute at a time. Two writes of minutes
 * of the same hour that ran side by side would each sum the hour without the other's uncommitted minute, and the
 * last to commit would leave an hour short of one of them.
 */
const WRITE_LOCK = 72_616_015;

/** How many rows one retention statement deletes: short transactions, no long lock on the tables. */
const DELETE_BATCH = 10_000;

/**
 * Hours and days are recomputed from the minutes only when every minute they hold is still kept. The retention job
 * runs on another clock (another worker's), so "still kept" leaves this much room on top of the retention.
 */
const RETENTION_MARGIN_MS = HOUR_MS;

/** The nil UUID stands for "no tenant" or "no policy" in the comparisons below, which Postgres can hash. */
const NIL = Prisma.raw(`'00000000-0000-0000-0000-000000000000'::uuid`);

export interface PostgresUsageWriterOptions {
  /**
   * How long minutes are kept (days; the minute retention the worker's retention job applies). An hour or day that
   * may have lost minutes to it is updated by the minute's difference instead of recomputed: see `writeMinute`.
   */
  minuteRetentionDays?: number;
  /** The clock (epoch ms) retention is judged by; tests inject one. */
  now?: () => number;
  /** How long one minute's transaction may take (ms). */
  transactionTimeoutMs?: number;
}

/** One row to write: the stored key (tenant, policy: UUIDs or null) and the counts. */
interface Row {
  tenantId: string | null;
  policyId: string | null;
  result: UsageCount['result'];
  reason: string;
  decisions: number;
  cost: number;
}

/**
 * The usage store on Postgres (docs/adr/0015-usage-counting-and-rollups.md): `usage_minute`, `usage_hour` and
 * `usage_day`, written with bulk statements (one statement per table and step, whatever the number of tenants: the
 * rows go in as arrays through `unnest`).
 */
export class PostgresUsageWriter implements UsageWriter {
  private readonly minuteRetentionMs: number;
  private readonly now: () => number;
  private readonly transactionTimeoutMs: number;

  constructor(
    private readonly prisma: PrismaClient,
    options: PostgresUsageWriterOptions = {},
  ) {
    this.minuteRetentionMs = (options.minuteRetentionDays ?? 7) * DAY_MS;
    this.now = options.now ?? Date.now;
    this.transactionTimeoutMs = options.transactionTimeoutMs ?? 120_000;
  }

  /**
   * Replaces the minute's rows of the tenants in `counts` (a tenant listed with no counts has none left), then brings
   * the hour and each tenant's local day that hold the minute in line, all in one transaction.
   *
   * Hours and days are recomputed, absolutely: an hour is the sum of its minutes; a day is the sum of the whole UTC
   * hours inside it plus the minutes at its edges (a day of `Asia/Kolkata` starts at :30 of a UTC hour), which reads
   * at most 24 hours and two edges instead of 1,440 minutes. Writing the same minute twice therefore leaves the same
   * rows, and so does a write that was interrupted and made again. The minute is upserted (rows whose values did
   * not change are not written again) and only keys it no longer has are deleted: no statement joins the written
   * rows against the stored ones, a join Postgres plans badly while its statistics do not know the new minute yet.
   * On a shared 2-core machine, 10,000 tenants × 3 policies × 2 results (60,000 rows a minute) take about 5 s.
   *
   * That needs every minute of the hour and day to be still kept. When the hour or a day started before the minute
   * retention (less a margin for the clocks of other workers), its older minutes may be gone, and a recomputation
   * would lose them: then the hour and days are moved by the difference between the minute's new and old rows
   * instead, read in the same transaction, which is just as idempotent and keeps what the older minutes had added.
   * The worker's configuration keeps minutes for longer than a usage hash lives, so the minute itself is always
   * there to compare with.
   *
   * A tenant's day is in the time zone it had when the minute began (`tenants.time_zone`, before that the zones its
   * recent changes replaced; a tenant deleted since keeps the zone its deletion's audit entry records: usage-days.ts); an id of no tenant ever audited, a zone this runtime does not know, and
   * "no tenant" use UTC. Ids that are not UUIDs and reasons with a NUL character cannot be stored
   * and are left out (`ids.ts`).
   */
  async writeMinute(minute: number, counts: ReadonlyMap<string, readonly UsageCount[]>, keys: KeyCountsByTenant = new Map(), routes: RouteCountsByTenant = new Map()): Promise<void> {
    const { tenantIds, noTenant, rows } = storableRows(counts);
    if (tenantIds.length === 0 && !noTenant) return;
    const minuteMs = minute * 1000;
    const hourStart = Math.floor(minuteMs / HOUR_MS) * HOUR_MS;

    await this.prisma.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT pg_advisory_xact_lock(${WRITE_LOCK})::text`;
        // A day's sums over ten thousand tenants are a few hundred thousand rows: aggregated in memory, not on disk.
        await tx.$executeRaw`SET LOCAL work_mem = '64MB'`;
        const days = await tenantDays(tx, tenantIds, noTenant, minuteMs);
        let earliest = hourStart;
        for (const day of days.values()) earliest = Math.min(earliest, day.start);
        const recompute = earliest >= this.now() - this.minuteRetentionMs + RETENTION_MARGIN_MS;

        // What the minute held before: nothing on a first write, the same keys when a minute is written again.
        const before = await minuteRowsOf(tx, minuteMs, tenantIds, noTenant);
        const written = new Set(rows.map((r) => rowKey(r.tenantId, r.policyId, r.result, r.reason)));
        const vanished = before.filter((r) => !written.has(rowKey(r.tenantId, r.policyId, r.result, r.reason)));

        await upsertMinute(tx, minuteMs, rows);
        if (vanished.length > 0) await deleteKeys(tx, minuteMs, hourStart, days, vanished, recompute);
        if (recompute) {
          await recomputeHour(tx, hourStart, tenantIds, noTenant);
          await recomputeDays(tx, days);
        } else {
          await addDifference(tx, hourStart, days, before, rows);
        }
        // The sums over every tenant, per tenant and per policy of the minute, the hour and the dates (totals-writer.ts).
        await writeTotals(tx, minuteMs, hourStart, [...days.values()].map((d) => d.day));
        await moveSumsByOwner(tx, minuteMs, hourStart, (tenantId) => days.get(tenantId)!.day, before, rows);
        // The calls of each API key, and its last use (key-usage-writer.ts).
        await writeKeyMinute(tx, minuteMs, [...counts.keys()], keys, hourStart >= this.now() - this.minuteRetentionMs + RETENTION_MARGIN_MS);
        // The decisions per route, policy or none, with their hour and days as the decisions' (route-usage-writer.ts).
        await writeRouteMinute(tx, minuteMs, [...counts.keys()], routes, days, {
          hour: hourStart >= this.now() - this.minuteRetentionMs + RETENTION_MARGIN_MS,
          days: recompute,
        });
      },
      { timeout: this.transactionTimeoutMs, maxWait: this.transactionTimeoutMs },
    );
  }

  /**
   * Deletes minutes, hours and days older than their retention before `now`, `DELETE_BATCH` rows per statement
   * (each its own short transaction) until none is left, and the totals of the same buckets (a row per result: few). Days are calendar dates: a day is kept while its date is on
   * or after the UTC date `retention.dayDays` days before `now`.
   */
  async deleteExpired(now: Date, retention: UsageRetention): Promise<ExpiredUsage> {
    const minuteCutoff = new Date(now.getTime() - retention.minuteDays * DAY_MS);
    const hourCutoff = new Date(now.getTime() - retention.hourDays * DAY_MS);
    const dayCutoff = new Date(now.getTime() - retention.dayDays * DAY_MS).toISOString().slice(0, 10);
    const minutes = await this.deleteBefore('usage_minute', 'id', Prisma.sql`bucket < ${minuteCutoff}`);
    const hours = await this.deleteBefore('usage_hour', 'id', Prisma.sql`bucket < ${hourCutoff}`);
    const days = await this.deleteBefore('usage_day', 'id', Prisma.sql`day < ${dayCutoff}::date`);
    // The per-key and per-route tables have no id: their rows are picked by their physical address.
    const keyMinutes = await this.deleteBefore('key_usage_minute', 'ctid', Prisma.sql`bucket < ${minuteCutoff}`);
    const keyHours = await this.deleteBefore('key_usage_hour', 'ctid', Prisma.sql`bucket < ${hourCutoff}`);
    const routeMinutes = await this.deleteBefore('usage_route_minute', 'ctid', Prisma.sql`bucket < ${minuteCutoff}`);
    const routeHours = await this.deleteBefore('usage_route_hour', 'ctid', Prisma.sql`bucket < ${hourCutoff}`);
    const routeDays = await this.deleteBefore('usage_route_day', 'ctid', Prisma.sql`day < ${dayCutoff}::date`);
    let totals =
      (await this.prisma.$executeRaw`DELETE FROM usage_total_minute WHERE bucket < ${minuteCutoff}`) +
      (await this.prisma.$executeRaw`DELETE FROM usage_total_hour WHERE bucket < ${hourCutoff}`) +
      (await this.prisma.$executeRaw`DELETE FROM usage_total_day WHERE day < ${dayCutoff}::date`);
    // The sums per tenant and per policy: a row per tenant and bucket, so deleted in batches too.
    const cutoffs = new Map([
      ['minute', Prisma.sql`bucket < ${minuteCutoff}`],
      ['hour', Prisma.sql`bucket < ${hourCutoff}`],
      ['day', Prisma.sql`day < ${dayCutoff}::date`],
    ]);
    for (const tables of SUMS_BY_OWNER.values()) {
      for (const [step, name] of tables) {
        const table = Prisma.raw(name);
        totals += await this.deleteInBatches((limit) =>
          this.prisma.$executeRaw`DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE ${cutoffs.get(step)!} LIMIT ${limit})`,
        );
      }
    }
    return { minutes, hours, days, keyMinutes, keyHours, routeMinutes, routeHours, routeDays, totals };
  }

  /**
   * Deletes the rows of `table` (one of this writer's own, named here: never input) for which `before` holds, a batch
   * at a time, each row picked by `by`: its `id`, or its physical address (`ctid`) in the tables without one.
   */
  private deleteBefore(table: string, by: 'id' | 'ctid', before: Prisma.Sql): Promise<number> {
    const [from, row] = [Prisma.raw(table), Prisma.raw(by)];
    return this.deleteInBatches((limit) => this.prisma.$executeRaw`DELETE FROM ${from} WHERE ${row} IN (SELECT ${row} FROM ${from} WHERE ${before} LIMIT ${limit})`);
  }

  private async deleteInBatches(deleteSome: (limit: number) => Promise<number>): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await deleteSome(DELETE_BATCH);
      total += deleted;
      if (deleted < DELETE_BATCH) return total;
    }
  }
}

type Tx = Prisma.TransactionClient;

/** The rows to store, their tenants' ids as stored, and whether "no tenant" is among them. Duplicates are summed. */
function storableRows(counts: ReadonlyMap<string, readonly UsageCount[]>): { tenantIds: string[]; noTenant: boolean; rows: Row[] } {
  const tenants = new Set<string>();
  let noTenant = false;
  const rows = new Map<string, Row>();
  for (const [rawTenant, tenantCounts] of counts) {
    const tenantId = storedTenantId(rawTenant);
    if (tenantId === undefined) continue;
    if (tenantId === null) noTenant = true;
    else tenants.add(tenantId);
    for (const count of tenantCounts) {
      if (!isStorableCount(count)) continue;
      const policyId = count.policyId?.toLowerCase() ?? null;
      const key = rowKey(tenantId, policyId, count.result, count.reason);
      const row = rows.get(key);
      if (row) {
        row.decisions += count.decisions;
        row.cost += count.cost;
      } else {
        rows.set(key, { tenantId, policyId, result: count.result, reason: count.reason, decisions: count.decisions, cost: count.cost });
      }
    }
  }
  return { tenantIds: [...tenants], noTenant, rows: [...rows.values()] };
}

function rowKey(tenantId: string | null, policyId: string | null, result: string, reason: string): string {
  return JSON.stringify([tenantId, policyId, result, reason]);
}

/** `a` and `b` (table aliases) have the same tenant and policy (null equal to null), result and reason; hashable. */
function sameKey(a: string, b: string): Prisma.Sql {
  const [x, y] = [Prisma.raw(a), Prisma.raw(b)];
  return Prisma.sql`coalesce(${x}.tenant_id, ${NIL}) = coalesce(${y}.tenant_id, ${NIL}) AND (${x}.tenant_id IS NULL) = (${y}.tenant_id IS NULL)
    AND coalesce(${x}.policy_id, ${NIL}) = coalesce(${y}.policy_id, ${NIL}) AND (${x}.policy_id IS NULL) = (${y}.policy_id IS NULL)
    AND ${x}.result = ${y}.result AND ${x}.reason = ${y}.reason`;
}

/** Rows (alias `t`) of the tenants written. */
function ofTenants(alias: string, tenantIds: string[], noTenant: boolean): Prisma.Sql {
  const t = Prisma.raw(alias);
  return Prisma.sql`(${t}.tenant_id = ANY(${tenantIds}::uuid[]) OR (${noTenant}::boolean AND ${t}.tenant_id IS NULL))`;
}

function columns(rows: Row[]) {
  return {
    tenants: rows.map((r) => r.tenantId),
    policies: rows.map((r) => r.policyId),
    results: rows.map((r) => r.result),
    reasons: rows.map((r) => r.reason),
    decisions: rows.map((r) => r.decisions),
    costs: rows.map((r) => r.cost),
  };
}

async function minuteRowsOf(tx: Tx, minuteMs: number, tenantIds: string[], noTenant: boolean): Promise<Row[]> {
  const rows = await tx.$queryRaw<{ tenant_id: string | null; policy_id: string | null; result: Row['result']; reason: string; decisions: bigint; cost: bigint }[]>`
    SELECT m.tenant_id::text AS tenant_id, m.policy_id::text AS policy_id, m.result::text AS result, m.reason, m.decisions, m.cost
    FROM usage_minute m WHERE m.bucket = ${new Date(minuteMs)} AND ${ofTenants('m', tenantIds, noTenant)}`;
  return rows.map((r) => ({ tenantId: r.tenant_id, policyId: r.policy_id, result: r.result, reason: r.reason, decisions: Number(r.decisions), cost: Number(r.cost) }));
}

/** The minute's rows of `rows` are upserted with their absolute values (unchanged rows are not written again). */
async function upsertMinute(tx: Tx, minuteMs: number, rows: Row[]): Promise<void> {
  if (rows.length === 0) return;
  const c = columns(rows);
  const bucket = new Date(minuteMs);
  await tx.$executeRaw`
    INSERT INTO usage_minute (bucket, tenant_id, policy_id, result, reason, decisions, cost)
    SELECT ${bucket}, * FROM unnest(${c.tenants}::uuid[], ${c.policies}::uuid[], ${c.results}::"UsageResult"[], ${c.reasons}::text[],
                                    ${c.decisions}::bigint[], ${c.costs}::bigint[])
    ON CONFLICT (bucket, tenant_id, policy_id, result, reason) DO UPDATE SET decisions = EXCLUDED.decisions, cost = EXCLUDED.cost
      WHERE (usage_minute.decisions, usage_minute.cost) IS DISTINCT FROM (EXCLUDED.decisions, EXCLUDED.cost)`;
}

/**
 * Deletes the minute's rows whose keys are no longer counted, and (when the hour and days are recomputed) the same
 * keys' hour and day rows, which the recomputation then puts back where other minutes still have them. Keys only go
 * when a minute is written again with less than before, which the rollup never does: this is seldom more than a few
 * rows, joined by hash on the null-safe key.
 */
async function deleteKeys(tx: Tx, minuteMs: number, hourStart: number, days: Map<string | null, DayWindow>, keys: Row[], recompute: boolean): Promise<void> {
  const c = columns(keys);
  const dates = keys.map((k) => days.get(k.tenantId)!.day);
  const gone = Prisma.sql`SELECT * FROM unnest(${c.tenants}::uuid[], ${c.policies}::uuid[], ${c.results}::"UsageResult"[], ${c.reasons}::text[], ${dates}::date[])
    AS v(tenant_id, policy_id, result, reason, day)`;
  await tx.$executeRaw`DELETE FROM usage_minute m USING (${gone}) v WHERE m.bucket = ${new Date(minuteMs)} AND ${sameKey('m', 'v')}`;
  if (!recompute) return;
  await tx.$executeRaw`DELETE FROM usage_hour h USING (${gone}) v WHERE h.bucket = ${new Date(hourStart)} AND ${sameKey('h', 'v')}`;
  await tx.$executeRaw`DELETE FROM usage_day x USING (${gone}) v WHERE x.day = v.day AND ${sameKey('x', 'v')}`;
}

/** The hour's rows of these tenants become the sums of its minutes (keys no minute has any more were deleted before). */
async function recomputeHour(tx: Tx, hourStart: number, tenantIds: string[], noTenant: boolean): Promise<void> {
  const [start, end] = [new Date(hourStart), new Date(hourStart + HOUR_MS)];
  await tx.$executeRaw`
    WITH sums AS (
      SELECT m.tenant_id, m.policy_id, m.result, m.reason, sum(m.decisions)::bigint AS decisions, sum(m.cost)::bigint AS cost
      FROM usage_minute m
      WHERE m.bucket >= ${start} AND m.bucket < ${end} AND ${ofTenants('m', tenantIds, noTenant)}
      GROUP BY m.tenant_id, m.policy_id, m.result, m.reason
    )
    INSERT INTO usage_hour (bucket, tenant_id, policy_id, result, reason, decisions, cost)
    SELECT ${start}, tenant_id, policy_id, result, reason, decisions, cost FROM sums
    ON CONFLICT (bucket, tenant_id, policy_id, result, reason) DO UPDATE SET decisions = EXCLUDED.decisions, cost = EXCLUDED.cost
      WHERE (usage_hour.decisions, usage_hour.cost) IS DISTINCT FROM (EXCLUDED.decisions, EXCLUDED.cost)`;
}

/**
 * Each tenant's day becomes the sum of the whole hours inside it (just recomputed for the minute's hour) and of the
 * minutes at its edges (each edge an index range of its own, empty for a zone whose days start on the hour). "No
 * tenant" (null) is joined on a branch of its own: `=` never matches null, and the null-safe comparison would keep
 * Postgres from using the (tenant_id, bucket) indexes; its days are UTC days, which have no edges.
 */
async function recomputeDays(tx: Tx, days: Map<string | null, DayWindow>): Promise<void> {
  // A row per span: a day cut by a zone change is the sum of its parts (usage-days.ts).
  const list = [...days].flatMap(([id, d]) => d.spans.map((span) => ({ id, day: d.day, ...span })));
  const tenants = list.map((s) => s.id);
  const dates = list.map((s) => s.day);
  const starts = list.map((s) => new Date(s.start));
  const ends = list.map((s) => new Date(s.end));
  const hoursStarts = list.map((s) => new Date(s.hoursStart));
  const hoursEnds = list.map((s) => new Date(s.hoursEnd));
  await tx.$executeRaw`
    WITH d AS (
      SELECT * FROM unnest(${tenants}::uuid[], ${dates}::date[], ${starts}::timestamptz[], ${ends}::timestamptz[],
                           ${hoursStarts}::timestamptz[], ${hoursEnds}::timestamptz[]) AS d(tenant_id, day, s, e, hs, he)
    ),
    parts AS (
      SELECT d.tenant_id, d.day, h.policy_id, h.result, h.reason, h.decisions, h.cost
        FROM d JOIN usage_hour h ON h.tenant_id = d.tenant_id AND h.bucket >= d.hs AND h.bucket < d.he
      UNION ALL
      SELECT d.tenant_id, d.day, h.policy_id, h.result, h.reason, h.decisions, h.cost
        FROM d JOIN usage_hour h ON d.tenant_id IS NULL AND h.tenant_id IS NULL AND h.bucket >= d.hs AND h.bucket < d.he
      UNION ALL
      SELECT d.tenant_id, d.day, m.policy_id, m.result, m.reason, m.decisions, m.cost
        FROM d JOIN usage_minute m ON m.tenant_id = d.tenant_id AND m.bucket >= d.s AND m.bucket < d.hs
      UNION ALL
      SELECT d.tenant_id, d.day, m.policy_id, m.result, m.reason, m.decisions, m.cost
        FROM d JOIN usage_minute m ON m.tenant_id = d.tenant_id AND m.bucket >= d.he AND m.bucket < d.e
    ),
    sums AS (
      SELECT tenant_id, day, policy_id, result, reason, sum(decisions)::bigint AS decisions, sum(cost)::bigint AS cost
      FROM parts GROUP BY tenant_id, day, policy_id, result, reason
    )
    INSERT INTO usage_day (day, tenant_id, policy_id, result, reason, decisions, cost)
    SELECT day, tenant_id, policy_id, result, reason, decisions, cost FROM sums
    ON CONFLICT (day, tenant_id, policy_id, result, reason) DO UPDATE SET decisions = EXCLUDED.decisions, cost = EXCLUDED.cost
      WHERE (usage_day.decisions, usage_day.cost) IS DISTINCT FROM (EXCLUDED.decisions, EXCLUDED.cost)`;
}

/** The hour and the days move by what the minute gained or lost (new rows less the rows it had before). */
async function addDifference(tx: Tx, hourStart: number, days: Map<string | null, DayWindow>, before: Row[], after: Row[]): Promise<void> {
  const difference = new Map<string, Row>();
  for (const [rows, sign] of [[after, 1], [before, -1]] as const) {
    for (const row of rows) {
      const key = rowKey(row.tenantId, row.policyId, row.result, row.reason);
      const sum = difference.get(key) ?? { ...row, decisions: 0, cost: 0 };
      sum.decisions += sign * row.decisions;
      sum.cost += sign * row.cost;
      difference.set(key, sum);
    }
  }
  const changed = [...difference.values()].filter((r) => r.decisions !== 0 || r.cost !== 0);
  if (changed.length === 0) return;
  const c = columns(changed);
  const dates = changed.map((r) => days.get(r.tenantId)?.day ?? new Date(hourStart).toISOString().slice(0, 10));
  const hour = new Date(hourStart);
  await tx.$executeRaw`
    INSERT INTO usage_hour (bucket, tenant_id, policy_id, result, reason, decisions, cost)
    SELECT ${hour}, * FROM unnest(${c.tenants}::uuid[], ${c.policies}::uuid[], ${c.results}::"UsageResult"[], ${c.reasons}::text[],
                                  ${c.decisions}::bigint[], ${c.costs}::bigint[])
    ON CONFLICT (bucket, tenant_id, policy_id, result, reason)
      DO UPDATE SET decisions = usage_hour.decisions + EXCLUDED.decisions, cost = usage_hour.cost + EXCLUDED.cost`;
  await tx.$executeRaw`
    INSERT INTO usage_day (day, tenant_id, policy_id, result, reason, decisions, cost)
    SELECT * FROM unnest(${dates}::date[], ${c.tenants}::uuid[], ${c.policies}::uuid[], ${c.results}::"UsageResult"[], ${c.reasons}::text[],
                         ${c.decisions}::bigint[], ${c.costs}::bigint[])
    ON CONFLICT (day, tenant_id, policy_id, result, reason)
      DO UPDATE SET decisions = usage_day.decisions + EXCLUDED.decisions, cost = usage_day.cost + EXCLUDED.cost`;
}
