import { TZDate } from '@date-fns/tz';
import { formatISO } from 'date-fns';
import { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { AppError, type DenialSamples, ErrorCode, type UsageRoutes, type UsageSeries, type UsageSummary, type UsageTop } from '@tollgate/domain';
import type { PrismaClient } from '@tollgate/db';
import { chooseStep, readDenialSamples, type UsageFilter, type UsageReader, type UsageRow, type UsageStep } from '@tollgate/usage';
import { stringify } from 'csv-stringify';
import type { RedisClient } from '@tollgate/nest-infra';
import { API_CONFIG, type ApiConfig } from '../../../config/config';
import { PRISMA, REDIS } from '../../../infra/infra.module';
import type { OwnRoutesQuery, SummaryQuery, TopQuery, UsageQuery } from '../dto/usage.schemas';

export const USAGE_READER = Symbol('UsageReader');

/** A range asked for with no `from`/`to`: the day up to now. */
const DEFAULT_RANGE_MS = 86_400_000;

interface TenantRef {
  id: string;
  slug: string;
  name: string;
  timeZone: string;
  planId: string;
}
interface PolicyRef {
  id: string;
  name: string;
  method: string;
  pattern: string;
}

/**
 * Who is asking about usage: an operator (any tenant, named by slug, or all of them), or a tenant caller (its own
 * tenant, always; the request cannot name another).
 */
export type UsageScope = { kind: 'operator'; tenantSlug?: string } | { kind: 'tenant'; tenantId: string };

/** The range a usage read reads (defaults filled in) and its step, and the same as its answer says them. */
export interface ReadRange {
  from: Date;
  to: Date;
  step: UsageStep;
  said: { from: string; to: string; step: UsageStep };
}

/** A read of usage made ready: the tenant and the policy it names, looked up, and its range and step. */
interface ResolvedRead extends ReadRange {
  tenant: TenantRef | null;
  policy: PolicyRef | null;
  filter: UsageFilter;
  timeZone: string;
}

const policySelect = { id: true, name: true, method: true, pattern: true } as const;

/** Looks up what a usage request names, and the names of what usage rows hold by id. */
@Injectable()
export class UsageNames {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  /**
   * The range of a query (defaults filled in) and the step it is read at, given what the worker keeps
   * (USAGE_RETENTION_*); a range that cannot be read is a 400 naming the field. `timeZone` is the zone of its days
   * (a tenant's, or UTC for a read over every tenant).
   */
  range(query: { from?: Date; to?: Date }, timeZone = 'UTC', now = new Date()): ReadRange {
    const to = query.to ?? now;
    const from = query.from ?? new Date(to.getTime() - DEFAULT_RANGE_MS);
    const choice = chooseStep(from, to, now, timeZone, this.config.usage.retention);
    if (!choice.ok) throw new AppError(ErrorCode.VALIDATION_FAILED, `${choice.field}: ${choice.problem}`, choice.field);
    return { from, to, step: choice.step, said: { from: from.toISOString(), to: to.toISOString(), step: choice.step } };
  }

  /** The tenant of the scope (null: an operator asking about every tenant). An unknown slug is a 404 naming `tenant`. */
  async tenantOf(scope: UsageScope): Promise<TenantRef | null> {
    const select = { id: true, slug: true, name: true, timeZone: true, planId: true } as const;
    if (scope.kind === 'tenant') {
      const tenant = await this.prisma.tenant.findUnique({ where: { id: scope.tenantId }, select });
      if (!tenant) throw new AppError(ErrorCode.NOT_FOUND, 'tenant not found');
      return tenant;
    }
    if (scope.tenantSlug === undefined) return null;
    const tenant = await this.prisma.tenant.findUnique({ where: { slug: scope.tenantSlug }, select });
    if (!tenant) throw new AppError(ErrorCode.NOT_FOUND, 'tenant not found', 'tenant');
    return tenant;
  }

  /**
   * The endpoint policy `id`. For a tenant caller only a policy that applies to it (its own, or its plan's) exists: any
   * other is the same 404 as an unknown id, so that another tenant's policies cannot be probed.
   */
  async policy(id: string, scope: UsageScope, tenant: TenantRef | null): Promise<PolicyRef> {
    const policy = await this.prisma.endpointPolicy.findUnique({ where: { id }, select: { ...policySelect, tenantId: true, planId: true } });
    const visible = policy && (scope.kind === 'operator' || (tenant !== null && (policy.tenantId === tenant.id || policy.planId === tenant.planId)));
    if (!policy || !visible) throw new AppError(ErrorCode.NOT_FOUND, 'policy not found', 'policy');
    return { id: policy.id, name: policy.name, method: policy.method, pattern: policy.pattern };
  }

  async tenants(ids: Iterable<string | null>): Promise<Map<string, { id: string; slug: string; name: string }>> {
    const wanted = [...new Set([...ids].filter((id): id is string => id !== null))];
    if (wanted.length === 0) return new Map();
    const rows = await this.prisma.tenant.findMany({ where: { id: { in: wanted } }, select: { id: true, slug: true, name: true } });
    return new Map(rows.map((t) => [t.id, t]));
  }

  async policies(ids: Iterable<string | null>): Promise<Map<string, PolicyRef>> {
    const wanted = [...new Set([...ids].filter((id): id is string => id !== null))];
    if (wanted.length === 0) return new Map();
    const rows = await this.prisma.endpointPolicy.findMany({ where: { id: { in: wanted } }, select: policySelect });
    return new Map(rows.map((p) => [p.id, p]));
  }

  /** Everything a series or an export needs, or the 4xx that says what is wrong with the request. */
  async resolve(scope: UsageScope, query: Omit<UsageQuery, 'tenant'>): Promise<ResolvedRead> {
    const tenant = await this.tenantOf(scope);
    const policy = query.policy === undefined ? null : await this.policy(query.policy, scope, tenant);
    const timeZone = tenant?.timeZone ?? 'UTC';
    const filter: UsageFilter = {
      ...(tenant ? { tenantId: tenant.id } : {}),
      ...(policy ? { policyId: policy.id } : {}),
      ...(query.result ? { result: query.result } : {}),
    };
    return { ...this.range(query, timeZone), tenant, policy, filter, timeZone };
  }
}

/** A use case that reads usage: `names` looks up what the request names and resolves its range, `reader` reads the rollups. */
@Injectable()
export abstract class UsageRead {
  constructor(
    protected readonly names: UsageNames,
    @Inject(USAGE_READER) protected readonly reader: UsageReader,
  ) {}
}

@Injectable()
export class UsageSeriesUseCase extends UsageRead {
  async execute(scope: UsageScope, query: Omit<UsageQuery, 'tenant'>): Promise<UsageSeries> {
    const read = await this.names.resolve(scope, query);
    const [points, refusedByReason] = await Promise.all([
      this.reader.series(read.filter, read.from, read.to, read.step, read.timeZone),
      this.reader.refusedByReason(read.filter, read.from, read.to, read.step, read.timeZone),
    ]);
    return {
      ...read.said,
      timeZone: read.timeZone,
      tenant: read.tenant && { id: read.tenant.id, slug: read.tenant.slug, name: read.tenant.name },
      policy: read.policy,
      result: query.result ?? null,
      points: points.map((p) => ({ ...p, at: p.at.toISOString() })),
      refusedByReason,
    };
  }
}

@Injectable()
export class UsageTopUseCase extends UsageRead {
  async execute(query: TopQuery): Promise<UsageTop> {
    // A limit denies at no cost: its cost is always 0, and ranking by it would rank nothing.
    if (query.by === 'limits' && query.metric === 'cost') throw new AppError(ErrorCode.VALIDATION_FAILED, 'metric: limits are ranked by denied or deny_rate', 'metric');
    // A refused check has no endpoint policy and no limit: only tenants have refusals to rank.
    if (query.by !== 'tenants' && query.metric === 'refused') throw new AppError(ErrorCode.VALIDATION_FAILED, 'metric: only tenants are ranked by refused', 'metric');
    const { from, to, step, said } = this.names.range(query);
    const entries = await this.reader.top({ by: query.by, metric: query.metric, from, to, step, minDecisions: query.minDecisions, top: query.top });
    const [tenants, policies] = await Promise.all([this.names.tenants(entries.map((e) => e.tenantId)), this.names.policies(entries.map((e) => e.policyId))]);
    return {
      by: query.by,
      metric: query.metric,
      ...said,
      minDecisions: query.minDecisions,
      items: entries.map((e) => ({
        tenantId: e.tenantId,
        tenant: (e.tenantId !== null && tenants.get(e.tenantId)) || null,
        policyId: e.policyId,
        policy: (e.policyId !== null && policies.get(e.policyId)) || null,
        limit: e.limit,
        decisions: e.decisions,
        denied: e.denied,
        denyRate: e.denyRate,
        cost: e.cost,
        refused: e.refused,
      })),
    };
  }
}

/** The decisions, 429 rate and would-denies of each tenant or endpoint policy of a list page, in one read. */
@Injectable()
export class UsageSummaryUseCase extends UsageRead {
  async execute(query: SummaryQuery): Promise<UsageSummary> {
    const { from, to, step, said } = this.names.range(query);
    const ids = [...new Set(query.id.map((id) => id.toLowerCase()))];
    const entries = await this.reader.summary(query.by, ids, from, to, step);
    return {
      by: query.by,
      ...said,
      items: entries.map((e) => ({ ...e, denyRate: e.decisions > 0 ? e.denied / e.decisions : null })),
    };
  }
}

/** The routes that lead a range (by 429 rate or volume), of every tenant or of the scope's tenant, with route × limit. */
@Injectable()
export class UsageRoutesUseCase extends UsageRead {
  constructor(names: UsageNames, @Inject(USAGE_READER) reader: UsageReader, @Inject(API_CONFIG) private readonly config: ApiConfig) {
    super(names, reader);
  }

  async execute(scope: UsageScope, query: OwnRoutesQuery): Promise<UsageRoutes> {
    const tenant = await this.names.tenantOf(scope);
    const { from, to, step, said } = this.names.range(query, tenant?.timeZone);
    const items = await this.reader.routes({
      ...(tenant ? { tenantId: tenant.id, timeZone: tenant.timeZone } : {}),
      order: query.order,
      from,
      to,
      step,
      minDecisions: query.minDecisions,
      top: query.top,
    });
    return {
      order: query.order,
      ...said,
      tenant: tenant && { id: tenant.id, slug: tenant.slug, name: tenant.name },
      minDecisions: query.minDecisions,
      routesPerTenantMinute: this.config.usage.routesPerTenantMinute,
      items,
    };
  }
}

@Injectable()
export class DenialSamplesUseCase {
  constructor(
    private readonly names: UsageNames,
    @Inject(REDIS) private readonly redis: RedisClient,
  ) {}

  async execute(scope: UsageScope, pageSize: number): Promise<DenialSamples> {
    const tenant = (await this.names.tenantOf(scope))!;
    let samples;
    try {
      samples = await readDenialSamples(this.redis, tenant.id, pageSize);
    } catch (err) {
      throw new AppError(ErrorCode.REDIS_UNAVAILABLE, 'the denial samples are in Redis, which did not answer; retry later', undefined, { cause: err });
    }
    const policies = await this.names.policies(samples.map((s) => s.policyId));
    return {
      sampled: true,
      tenant: { id: tenant.id, slug: tenant.slug, name: tenant.name },
      items: samples.map((s) => ({
        id: s.id,
        at: s.at.toISOString(),
        policyId: s.policyId,
        policy: (s.policyId !== null && policies.get(s.policyId)) || null,
        endpoint: s.endpoint,
        subject: s.subject,
        limit: s.limit,
        remaining: s.remaining,
        result: s.result,
      })),
    };
  }
}

/** The CSV export's columns, in order. */
/**
 * The export's columns: `bucket` in UTC (a calendar day as the day), `bucket_local` the same instant in the tenant's
 * time zone with its offset (what the portal shows; UTC for no tenant), `time_zone` that zone, `tenant` the slug (the
 * id of a tenant deleted since), `tenant_name` its display name.
 */
export const USAGE_CSV_COLUMNS = ['bucket', 'bucket_local', 'time_zone', 'tenant', 'tenant_name', 'policy', 'result', 'reason', 'decisions', 'cost'] as const;

@Injectable()
export class UsageExportUseCase extends UsageRead {
  /**
   * The rows of the range as CSV, read a batch at a time as the client takes them. Everything that can be refused is
   * refused before the first byte; a failure after it cuts the download short (a client sees an incomplete file, not
   * a complete-looking one).
   */
  async execute(scope: UsageScope, query: Omit<UsageQuery, 'tenant'>): Promise<{ csv: Readable; filename: string }> {
    const read = await this.names.resolve(scope, query);
    const rows = this.reader.rows(read.filter, read.from, read.to, read.step, read.timeZone);
    // Names are anyone's text: csv-stringify quotes what needs quoting, and `escape_formulas` puts a `'` before a
    // value that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`).
    const csv = stringify({ header: true, columns: [...USAGE_CSV_COLUMNS], escape_formulas: true });
    const source = Readable.from(records(rows));
    source.on('error', (err) => csv.destroy(err));
    source.pipe(csv);
    const stamp = (d: Date) => d.toISOString().replaceAll(':', '').replace(/\.\d{3}/, '');
    return { csv, filename: `usage-${read.tenant?.slug ?? 'all'}-${stamp(read.from)}-${stamp(read.to)}.csv` };
  }
}

/** A minute or hour (`…Z`) as the same instant in `zone`, with the zone's offset; a calendar day as it is. */
function localBucket(bucket: string, zone: string): string {
  if (!bucket.endsWith('Z')) return bucket;
  return formatISO(new TZDate(Date.parse(bucket), zone));
}

/** A row as the CSV writes it: names where they are known, the id of a tenant or policy deleted since, '' for none. */
async function* records(rows: AsyncIterable<UsageRow>): AsyncGenerator<Record<(typeof USAGE_CSV_COLUMNS)[number], string>> {
  for await (const r of rows) {
    const zone = r.tenantTimeZone ?? 'UTC';
    yield {
      bucket: r.bucket,
      bucket_local: localBucket(r.bucket, zone),
      time_zone: zone,
      tenant: r.tenantSlug ?? r.tenantId ?? '',
      tenant_name: r.tenantName ?? '',
      policy: r.policyName ?? r.policyId ?? '',
      result: r.result,
      reason: r.reason,
      decisions: String(r.decisions),
      cost: String(r.cost),
    };
  }
}
