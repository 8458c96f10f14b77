import { Prisma, type PrismaClient } from '@tollgate/db';
import { DEGRADED_CAUSES, type DegradedCause } from '@tollgate/domain';
import type { UsageResult } from './fields';
import { bucketsOf, type UsageStep } from './range';
import { readRoutes } from './route-usage-reader';
import { SUMS_BY_OWNER } from './totals-writer';
import type {
  DegradedCounts,
  DegradedUsage,
  UsageFilter,
  UsagePoint,
  UsageReader,
  UsageRouteEntry,
  UsageRoutesQuery,
  UsageRow,
  UsageSummaryBy,
  UsageSummaryEntry,
  UsageTopEntry,
  UsageTopMetric,
  UsageTopQuery,
} from './store';

/**
 * `UsageReader` on the Postgres rollup tables (docs/adr/0015-usage-counting-and-rollups.md). Every query is one
 * statement with its values as parameters; the only SQL chosen in code (the table, the step's interval, the order of a
 * top-N) comes from the constants below, never from a request.
 */
export class PostgresUsageReader implements UsageReader {
  /** Rows per query of the CSV export: one batch in memory at a time, whatever the range. */
  static readonly ROWS_BATCH = 5000;

  constructor(private readonly prisma: PrismaClient) {}

  async series(filter: UsageFilter, from: Date, to: Date, step: UsageStep, timeZone: string): Promise<UsagePoint[]> {
    const sums = Prisma.sql`
      sum(u.decisions) filter (where u.result = 'allowed') as allowed,
      sum(u.decisions) filter (where u.result = 'denied') as denied,
      sum(u.decisions) filter (where u.result = 'shadow_denied') as shadow_denied,
      sum(u.decisions) filter (where u.result in ('degraded_allowed', 'degraded_denied')) as degraded,
      sum(u.decisions) filter (where u.result = 'refused') as refused,
      sum(u.cost) as cost`;
    const totals = Prisma.sql`
      coalesce(s.allowed, 0)::bigint as allowed, coalesce(s.denied, 0)::bigint as denied,
      coalesce(s.shadow_denied, 0)::bigint as shadow_denied, coalesce(s.degraded, 0)::bigint as degraded,
      coalesce(s.refused, 0)::bigint as refused, coalesce(s.cost, 0)::bigint as cost`;
    const where = conditions(filter, rangeOf(step, from, to, timeZone));
    // Over every tenant and policy, the totals (a row per bucket and result) hold the same sums as the tenants' rows.
    const overAll = filter.tenantId === undefined && filter.policyId === undefined;
    const source = overAll ? TOTALS.get(step)! : table(step);
    const rows = await this.bucketed<PointRow>({ sums, totals, source, where }, from, to, step, timeZone);
    return rows.map((r) => ({
      at: r.at,
      allowed: Number(r.allowed),
      denied: Number(r.denied),
      shadowDenied: Number(r.shadow_denied),
      degraded: Number(r.degraded),
      refused: Number(r.refused),
      cost: Number(r.cost),
    }));
  }

  async refusedByReason(filter: UsageFilter, from: Date, to: Date, step: UsageStep, timeZone: string): Promise<{ reason: string; checks: number }[]> {
    const where = conditions({ ...filter, result: 'refused' }, rangeOf(step, from, to, timeZone));
    // A policy or another result asked for: refused checks have neither.
    if (filter.policyId !== undefined || (filter.result !== undefined && filter.result !== 'refused')) return [];
    const rows = await this.prisma.$queryRaw<{ reason: string; checks: bigint }[]>`
      select u.reason, sum(u.decisions)::bigint as checks from ${table(step)} u where ${where}
      group by u.reason having sum(u.decisions) > 0 order by checks desc, u.reason`;
    return rows.map((r) => ({ reason: r.reason, checks: Number(r.checks) }));
  }

  async degraded(from: Date, to: Date, step: UsageStep, top: number): Promise<DegradedUsage> {
    const degraded = Prisma.sql`u.result in ('degraded_allowed', 'degraded_denied')`;
    const where = Prisma.sql`${rangeOf(step, from, to, 'UTC')} and ${degraded}`;
    const byCause = Prisma.join(
      DEGRADED_CAUSES.map((cause) => Prisma.sql`sum(u.decisions) filter (where split_part(u.reason, ':', 2) = ${cause}) as ${Prisma.raw(cause)}`),
      ', ',
    );
    const sums = Prisma.sql`${byCause}, sum(u.decisions) as decisions`;
    const totals = Prisma.join(
      [...DEGRADED_CAUSES, 'decisions'].map((column) => Prisma.sql`coalesce(s.${Prisma.raw(column)}, 0)::bigint as ${Prisma.raw(column)}`),
      ', ',
    );
    const points = await this.bucketed<CauseRow & { at: Date }>({ sums, totals, source: table(step), where }, from, to, step, 'UTC');
    const tenants = await this.prisma.$queryRaw<(CauseRow & { tenant_id: string | null })[]>`
      select u.tenant_id, ${sums} from ${table(step)} u where ${where}
      group by u.tenant_id order by decisions desc, u.tenant_id nulls first limit ${top}`;
    return {
      points: points.map((r) => ({ at: r.at, ...causesOf(r) })),
      tenants: tenants.map((r) => ({ tenantId: r.tenant_id, ...causesOf(r) })),
    };
  }

  /**
   * One row per bucket of the range (minutes or hours; the days of `timeZone`), zeros where `source` has none: `sums`
   * aggregates the rows of `source` matching `where` per bucket, `totals` selects them from `s`, null as 0.
   */
  private bucketed<R>(q: { sums: Prisma.Sql; totals: Prisma.Sql; source: Prisma.Sql; where: Prisma.Sql }, from: Date, to: Date, step: UsageStep, timeZone: string): Promise<R[]> {
    if (step === 'day') {
      // The days of the range in `timeZone`; each point starts at that day's midnight there (a tenant in Asia/Kolkata:
      // 18:30 UTC the day before).
      return this.prisma.$queryRaw<R[]>`
        select (g.d at time zone ${timeZone}) as at, ${q.totals}
        from generate_series(${localDay(from, timeZone)}::timestamp, ${localDay(lastMs(to), timeZone)}::timestamp, interval '1 day') as g(d)
        left join (select u.day, ${q.sums} from ${q.source} u where ${q.where} group by u.day) s on s.day = g.d::date
        order by g.d`;
    }
    const { first, last } = bucketsOf(step, from, to);
    return this.prisma.$queryRaw<R[]>`
      select g.at, ${q.totals}
      from generate_series(${first}::timestamptz, ${last}::timestamptz, ${Prisma.raw(INTERVAL.get(step)!)}) as g(at)
      left join (select u.bucket, ${q.sums} from ${q.source} u where ${q.where} group by u.bucket) s on s.bucket = g.at
      order by g.at`;
  }

  async top(query: UsageTopQuery): Promise<UsageTopEntry[]> {
    const range = rangeOf(query.step, query.from, query.to, 'UTC');
    const from = table(query.step);
    let entries: Prisma.Sql;
    if (query.by === 'limits') {
      // A limit's rate is over the decisions of its tenant and endpoint policy: the requests it could have refused.
      entries = Prisma.sql`
        select l.tenant_id, l.policy_id, l.reason as limit_name, s.decisions, l.denied, 0::numeric as cost, 0::numeric as refused
        from (select u.tenant_id, u.policy_id, u.reason, sum(u.decisions) as denied from ${from} u where ${range} and u.result = 'denied' group by 1, 2, 3) l
        join (select u.tenant_id, u.policy_id, sum(u.decisions) as decisions from ${from} u where ${range} group by 1, 2) s
          on s.tenant_id is not distinct from l.tenant_id and s.policy_id is not distinct from l.policy_id`;
    } else {
      // The sums per tenant or per policy of each bucket (totals-writer.ts): a row per owner and bucket of the range,
      // a quarter of the rows per tenant, policy, result and reason or fewer.
      const tenants = query.by === 'tenants';
      const key = tenants ? Prisma.sql`u.tenant_id` : Prisma.sql`u.policy_id`;
      entries = Prisma.sql`
        select ${tenants ? key : Prisma.sql`null::uuid`} as tenant_id, ${tenants ? Prisma.sql`null::uuid` : key} as policy_id,
          null::text as limit_name, sum(u.decisions) as decisions, sum(u.denied) as denied, sum(u.cost) as cost, 0::numeric as refused
        from ${Prisma.raw(SUMS_BY_OWNER.get(tenants ? 'tenant' : 'policy')!.get(query.step)!)} u where ${range} group by ${key}`;
      if (tenants) {
        // With each tenant's refused checks, and those of keys of no one (a null tenant, which the sums per tenant do
        // not hold): few rows, read from the table of the step. Joined on a key that is never null (a full join needs
        // an equality).
        const none = Prisma.sql`'00000000-0000-0000-0000-000000000000'::uuid`;
        entries = Prisma.sql`
          select coalesce(o.tenant_id, r.tenant_id) as tenant_id, null::uuid as policy_id, null::text as limit_name,
            coalesce(o.decisions, r.refused) as decisions, coalesce(o.denied, 0) as denied, coalesce(o.cost, 0) as cost, coalesce(r.refused, 0) as refused
          from (${entries}) o
          full join (select u.tenant_id, sum(u.decisions) as refused from ${from} u where ${range} and u.result = 'refused' group by 1) r
            on coalesce(r.tenant_id, ${none}) = coalesce(o.tenant_id, ${none})`;
      }
    }
    const rows = await this.prisma.$queryRaw<TopRow[]>`
      select e.tenant_id, e.policy_id, e.limit_name, e.decisions::bigint as decisions, e.denied::bigint as denied, e.cost::bigint as cost, e.refused::bigint as refused,
        case when e.decisions > 0 then e.denied::float8 / e.decisions::float8 else 0 end as deny_rate
      from (${entries}) e
      where ${RANKED.get(query.metric)!} and e.decisions >= ${query.metric === 'deny_rate' ? query.minDecisions : 0}
      order by ${ORDER.get(query.metric)!}, e.tenant_id nulls first, e.policy_id nulls first, e.limit_name nulls first
      limit ${query.top}`;
    return rows.map((r) => ({
      tenantId: r.tenant_id,
      policyId: r.policy_id,
      limit: r.limit_name,
      decisions: Number(r.decisions),
      denied: Number(r.denied),
      denyRate: Number(r.deny_rate),
      cost: Number(r.cost),
      refused: Number(r.refused),
    }));
  }

  async summary(by: UsageSummaryBy, ids: readonly string[], from: Date, to: Date, step: UsageStep): Promise<UsageSummaryEntry[]> {
    if (ids.length === 0) return [];
    const range = rangeOf(step, from, to, 'UTC');
    const tenants = by === 'tenants';
    const owner = tenants ? Prisma.sql`u.tenant_id` : Prisma.sql`u.policy_id`;
    const sums = Prisma.raw(SUMS_BY_OWNER.get(tenants ? 'tenant' : 'policy')!.get(step)!);
    const wanted = Prisma.sql`${owner} = any(${[...ids]}::uuid[])`;
    // The sums per owner hold decisions and 429s; the would-denies are in the rows by result (a bucket's few of them).
    const rows = await this.prisma.$queryRaw<SummaryRow[]>`
      select o.id::text as id, coalesce(s.decisions, 0)::bigint as decisions, coalesce(s.denied, 0)::bigint as denied,
        coalesce(w.shadow_denied, 0)::bigint as shadow_denied
      from unnest(${[...ids]}::uuid[]) with ordinality as o(id, n)
      left join (select ${owner} as id, sum(u.decisions) as decisions, sum(u.denied) as denied from ${sums} u where ${range} and ${wanted} group by 1) s on s.id = o.id
      left join (
        select ${owner} as id, sum(u.decisions) as shadow_denied from ${table(step)} u
        where ${range} and ${wanted} and u.result = 'shadow_denied' group by 1
      ) w on w.id = o.id
      order by o.n`;
    return rows.map((r) => ({ id: r.id, decisions: Number(r.decisions), denied: Number(r.denied), shadowDenied: Number(r.shadow_denied) }));
  }

  routes(query: UsageRoutesQuery): Promise<UsageRouteEntry[]> {
    return readRoutes(this.prisma, query, rangeOf(query.step, query.from, query.to, query.timeZone ?? 'UTC'));
  }

  async *rows(filter: UsageFilter, from: Date, to: Date, step: UsageStep, timeZone: string): AsyncIterable<UsageRow> {
    const where = conditions(filter, rangeOf(step, from, to, timeZone));
    const bucket = step === 'day' ? Prisma.sql`u.day` : Prisma.sql`u.bucket`;
    const text = step === 'day' ? Prisma.sql`to_char(u.day, 'YYYY-MM-DD')` : Prisma.sql`to_char(u.bucket at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;
    // Keyset pages in (bucket, id) order: each query starts after the last row of the one before.
    let after: { bucket: string; id: string } | null = null;
    for (;;) {
      const past = after === null ? Prisma.sql`true` : Prisma.sql`(${bucket}, u.id) > (${after.bucket}::${Prisma.raw(step === 'day' ? 'date' : 'timestamptz')}, ${after.id}::bigint)`;
      const batch: RowOfTable[] = await this.prisma.$queryRaw<RowOfTable[]>`
        select u.id, ${text} as bucket, ${bucket}::text as bucket_key, u.tenant_id, t.slug as tenant_slug, t.name as tenant_name, t.time_zone as tenant_zone,
          u.policy_id, p.name as policy_name, u.result::text as result, u.reason, u.decisions, u.cost
        from ${table(step)} u
        left join tenants t on t.id = u.tenant_id
        left join endpoint_policies p on p.id = u.policy_id
        where ${where} and ${past}
        order by ${bucket}, u.id
        limit ${PostgresUsageReader.ROWS_BATCH}`;
      for (const r of batch) {
        yield {
          bucket: r.bucket,
          tenantId: r.tenant_id,
          tenantSlug: r.tenant_slug,
          tenantName: r.tenant_name,
          tenantTimeZone: r.tenant_zone,
          policyId: r.policy_id,
          policyName: r.policy_name,
          result: r.result,
          reason: r.reason,
          decisions: Number(r.decisions),
          cost: Number(r.cost),
        };
      }
      const last = batch.at(-1);
      if (!last || batch.length < PostgresUsageReader.ROWS_BATCH) return;
      after = { bucket: last.bucket_key, id: String(last.id) };
    }
  }
}

interface PointRow {
  at: Date;
  allowed: bigint;
  denied: bigint;
  shadow_denied: bigint;
  degraded: bigint;
  refused: bigint;
  cost: bigint;
}

/** Degraded decisions per cause (`DEGRADED_CAUSES`) and in all. */
type CauseRow = Record<DegradedCause | 'decisions', bigint>;

/** A row's counts by cause; `unknown`: those counted before causes were (their reason names no cause). */
function causesOf(r: CauseRow): DegradedCounts {
  const decisions = Number(r.decisions);
  const byCause = { deadline: Number(r.deadline), circuit_open: Number(r.circuit_open), redis_error: Number(r.redis_error), replica: Number(r.replica) };
  return { decisions, byCause: { ...byCause, unknown: decisions - byCause.deadline - byCause.circuit_open - byCause.redis_error - byCause.replica } };
}

interface TopRow {
  tenant_id: string | null;
  policy_id: string | null;
  limit_name: string | null;
  decisions: bigint;
  denied: bigint;
  cost: bigint;
  refused: bigint;
  deny_rate: number;
}

interface SummaryRow {
  id: string;
  decisions: bigint;
  denied: bigint;
  shadow_denied: bigint;
}

interface RowOfTable {
  id: bigint;
  bucket: string;
  bucket_key: string;
  tenant_id: string | null;
  tenant_slug: string | null;
  tenant_name: string | null;
  tenant_zone: string | null;
  policy_id: string | null;
  policy_name: string | null;
  result: UsageResult;
  reason: string;
  decisions: bigint;
  cost: bigint;
}

const TABLES: ReadonlyMap<UsageStep, Prisma.Sql> = new Map([
  ['minute', Prisma.raw('usage_minute')],
  ['hour', Prisma.raw('usage_hour')],
  ['day', Prisma.raw('usage_day')],
]);
const table = (step: UsageStep): Prisma.Sql => TABLES.get(step)!;
/** The sums over every tenant of each granularity (totals-writer.ts): the same columns but tenant, policy and reason. */
const TOTALS: ReadonlyMap<UsageStep, Prisma.Sql> = new Map([
  ['minute', Prisma.raw('usage_total_minute')],
  ['hour', Prisma.raw('usage_total_hour')],
  ['day', Prisma.raw('usage_total_day')],
]);

const INTERVAL: ReadonlyMap<UsageStep, string> = new Map([
  ['minute', "interval '1 minute'"],
  ['hour', "interval '1 hour'"],
]);

/** Which entries a top-N ranks, and in which order. */
const RANKED: ReadonlyMap<UsageTopMetric, Prisma.Sql> = new Map([
  ['denied', Prisma.sql`e.denied > 0`],
  ['deny_rate', Prisma.sql`e.denied > 0`],
  ['cost', Prisma.sql`e.cost > 0`],
  ['refused', Prisma.sql`e.refused > 0`],
]);
const ORDER: ReadonlyMap<UsageTopMetric, Prisma.Sql> = new Map([
  ['denied', Prisma.sql`e.denied desc, e.decisions desc`],
  ['deny_rate', Prisma.sql`deny_rate desc, e.denied desc`],
  ['cost', Prisma.sql`e.cost desc, e.decisions desc`],
  ['refused', Prisma.sql`e.refused desc, e.decisions desc`],
]);

/** The range's last millisecond: the range is [from, to). */
const lastMs = (to: Date) => new Date(to.getTime() - 1);

/** The calendar day in `timeZone` that holds `at`, as `YYYY-MM-DD`. */
function localDay(at: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** The rows of the buckets that overlap [from, to): the days of the range in `timeZone` for the day table. */
function rangeOf(step: UsageStep, from: Date, to: Date, timeZone: string): Prisma.Sql {
  if (step === 'day') return Prisma.sql`u.day between ${localDay(from, timeZone)}::date and ${localDay(lastMs(to), timeZone)}::date`;
  const { first, last } = bucketsOf(step, from, to);
  return Prisma.sql`u.bucket between ${first}::timestamptz and ${last}::timestamptz`;
}

function conditions(filter: UsageFilter, range: Prisma.Sql): Prisma.Sql {
  const all = [range];
  if (filter.tenantId !== undefined) all.push(Prisma.sql`u.tenant_id = ${filter.tenantId}::uuid`);
  if (filter.policyId !== undefined) all.push(Prisma.sql`u.policy_id = ${filter.policyId}::uuid`);
  if (filter.result !== undefined) all.push(Prisma.sql`u.result = ${filter.result}::"UsageResult"`);
  return Prisma.join(all, ' and ');
}
