import type { Readable } from 'node:stream';
import { applyDecorators, Get, Query, StreamableFile } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiResponse } from '@nestjs/swagger';
import {
  type DegradedUsageView,
  degradedUsageSchema,
  type DenialSamples,
  denialSamplesSchema,
  type UsageRoutes,
  usageRoutesSchema,
  type UsageSeries,
  usageSeriesSchema,
  type UsageSummary,
  usageSummarySchema,
  type UsageTop,
  usageTopSchema,
  type WouldDeny,
  wouldDenySchema,
} from '@tollgate/domain';
import { z } from 'zod';
import { AccessRoute, BearerController, OperatorRoute } from '../../common/route';
import { Access } from '../../common/access.decorator';
import { ApiAnswer } from '../../common/api-json-body';
import { type Caller, CurrentCaller, ownTenantOf } from '../../common/caller';
import { ApiQueryOf } from '../../common/api-query';
import { ZodPipe } from '../../common/zod.pipe';
import {
  type DegradedQuery,
  degradedQuery,
  denialsQuery,
  ownDenialsQuery,
  type OwnRoutesQuery,
  ownRoutesQuery,
  type RoutesQuery,
  routesQuery,
  type OwnUsageQuery,
  ownUsageQuery,
  summaryQuery,
  type SummaryQuery,
  topQuery,
  type TopQuery,
  type UsageQuery,
  usageQuery,
  wouldDenyQuery,
  type WouldDenyQuery,
} from './dto/usage.schemas';
import { DenialSamplesUseCase, USAGE_CSV_COLUMNS, UsageExportUseCase, UsageRoutesUseCase, UsageSeriesUseCase, UsageSummaryUseCase, UsageTopUseCase } from './use-cases/usage.use-cases';
import { DegradedUsageUseCase } from './use-cases/degraded.use-case';
import { WOULD_DENY_TENANTS_SAMPLED, WouldDenyUseCase } from './use-cases/would-deny.use-case';

/** What the document says of the range and filters of a series, an export, a top list or a preview. */
const RANGE = {
  from: 'start of the range (ISO 8601 with its zone); default: a day before `to`',
  to: 'end of the range, excluded; default: now',
  tenant: 'tenant slug',
  policy: 'endpoint policy id',
};

const ApiCsv = () =>
  applyDecorators(
    ApiProduces('text/csv'),
    ApiResponse({
      status: 200,
      description: `the stored rows of the range, oldest first, as an attachment; columns ${USAGE_CSV_COLUMNS.join(', ')} (bucket: the minute or hour in UTC, or the calendar day)`,
      content: { 'text/csv': { schema: { type: 'string' } } },
    }),
  );

const attachment = ({ csv, filename }: { csv: Readable; filename: string }) =>
  new StreamableFile(csv, { type: 'text/csv; charset=utf-8', disposition: `attachment; filename="${filename}"` });

const ROUTES = {
  order: 'deny_rate: the share of decisions refused by a limit (429s), most first; decisions: the most decisions first',
  minDecisions: 'deny_rate ranks only routes with at least this many decisions',
  top: 'how many routes',
};

const DENIALS = { tenant: 'tenant slug', pageSize: 'how many samples, newest first' };

/** Usage of every tenant, for operators: decisions over time, who leads, recent denials, CSV. */
@BearerController('usage', 'v1/admin')
export class UsageController {
  constructor(
    private readonly series: UsageSeriesUseCase,
    private readonly topUsage: UsageTopUseCase,
    private readonly denialSamples: DenialSamplesUseCase,
    private readonly exportUsage: UsageExportUseCase,
    private readonly wouldDeny: WouldDenyUseCase,
    private readonly degradedUsage: DegradedUsageUseCase,
    private readonly summaryOf: UsageSummaryUseCase,
    private readonly routeUsage: UsageRoutesUseCase,
  ) {}

  /** The routes (`METHOD /path`, policy or none) that lead the range by 429 rate or volume, of every tenant or of one, with the limits that denied each. */
  @OperatorRoute('GET usage/routes', 'Get the top routes', usageRoutesSchema)
  @ApiQueryOf(routesQuery, { ...RANGE, ...ROUTES })
  routes(@Query(new ZodPipe(routesQuery)) query: RoutesQuery): Promise<UsageRoutes> {
    const { tenant, ...rest } = query;
    return this.routeUsage.execute({ kind: 'operator', ...(tenant === undefined ? {} : { tenantSlug: tenant }) }, rest);
  }

  /** Decisions per bucket of the range, of one tenant, one endpoint policy, one result, or all of them. */
  @OperatorRoute('GET usage', 'Get usage over time', usageSeriesSchema)
  @ApiQueryOf(usageQuery, RANGE)
  get(@Query(new ZodPipe(usageQuery)) query: UsageQuery): Promise<UsageSeries> {
    const { tenant, ...rest } = query;
    return this.series.execute({ kind: 'operator', ...(tenant === undefined ? {} : { tenantSlug: tenant }) }, rest);
  }

  /** The tenants, endpoint policies or limits that lead the range by denials, deny rate or cost. */
  @OperatorRoute('GET usage/top', 'Get the top tenants, policies or limits', usageTopSchema)
  @ApiQueryOf(topQuery, { ...RANGE, minDecisions: 'deny_rate ranks only entries with at least this many decisions', top: 'how many entries' })
  top(@Query(new ZodPipe(topQuery)) query: TopQuery): Promise<UsageTop> {
    return this.topUsage.execute(query);
  }

  /**
   * The decisions, 429s (and their rate) and shadow would-denies over the range of each tenant or endpoint policy
   * named: the rows of a list page in one read.
   */
  @OperatorRoute('GET usage/summary', 'Get usage of several tenants or policies', usageSummarySchema)
  @ApiQueryOf(summaryQuery, { ...RANGE, by: 'what the ids are', id: 'a tenant or endpoint policy id; repeat it for each (at most 200)' })
  summary(@Query(new ZodPipe(summaryQuery)) query: SummaryQuery): Promise<UsageSummary> {
    return this.summaryOf.execute(query);
  }

  /** A sample of the tenant's recent denials, newest first. */
  @OperatorRoute('GET usage/denials', 'List recent denials', denialSamplesSchema)
  @ApiQueryOf(denialsQuery, DENIALS)
  denials(@Query(new ZodPipe(denialsQuery)) query: z.infer<typeof denialsQuery>): Promise<DenialSamples> {
    return this.denialSamples.execute({ kind: 'operator', tenantSlug: query.tenant }, query.pageSize);
  }

  /** What enforcing an endpoint policy in shadow mode would have refused over the range, and whom (sampled). */
  @Get('usage/would-deny')
  @ApiOperation({ summary: 'Get what a shadow policy would deny' })
  @Access('operator')
  @ApiQueryOf(wouldDenyQuery, {
    ...RANGE,
    top: `how many subjects, most sampled first (from the samples of the ${WOULD_DENY_TENANTS_SAMPLED} tenants with the most would-denies)`,
  })
  @ApiAnswer(wouldDenySchema)
  wouldDenyOf(@Query(new ZodPipe(wouldDenyQuery)) query: WouldDenyQuery): Promise<WouldDeny> {
    return this.wouldDeny.execute(query);
  }

  /** The decisions failure modes made over the range because Redis did not decide: by cause, per bucket, and by tenant. */
  @OperatorRoute('GET usage/degraded', 'Get degraded decisions by cause', degradedUsageSchema)
  @ApiQueryOf(degradedQuery, { ...RANGE, top: 'how many tenants, most degraded decisions first' })
  degraded(@Query(new ZodPipe(degradedQuery)) query: DegradedQuery): Promise<DegradedUsageView> {
    return this.degradedUsage.execute(query);
  }

  /** The rows of the range as CSV (the filters of `GET /v1/admin/usage`). */
  @Get('usage.csv')
  @ApiOperation({ summary: 'Export usage as CSV' })
  @Access('operator')
  @ApiQueryOf(usageQuery, RANGE)
  @ApiCsv()
  async csv(@Query(new ZodPipe(usageQuery)) query: UsageQuery): Promise<StreamableFile> {
    const { tenant, ...rest } = query;
    return attachment(await this.exportUsage.execute({ kind: 'operator', ...(tenant === undefined ? {} : { tenantSlug: tenant }) }, rest));
  }
}

/** A tenant's own usage, for its users and tenant keys: the same reads, of its own tenant only. */
@BearerController('tenant', 'v1/tenant')
export class OwnUsageController {
  constructor(
    private readonly series: UsageSeriesUseCase,
    private readonly denialSamples: DenialSamplesUseCase,
    private readonly exportUsage: UsageExportUseCase,
    private readonly routeUsage: UsageRoutesUseCase,
  ) {}

  /** The tenant's routes that lead the range by 429 rate or volume, with the limits that denied each (route × limit). */
  @AccessRoute('tenant', 'GET usage/routes', 'Get own top routes', usageRoutesSchema)
  @ApiQueryOf(ownRoutesQuery, { from: RANGE.from, to: RANGE.to, ...ROUTES })
  routes(@CurrentCaller() caller: Caller, @Query(new ZodPipe(ownRoutesQuery)) query: OwnRoutesQuery): Promise<UsageRoutes> {
    return this.routeUsage.execute({ kind: 'tenant', tenantId: ownTenantOf(caller) }, query);
  }

  /** The tenant's decisions per bucket of the range (days in its time zone); `policy` only one that applies to it. */
  @AccessRoute('tenant', 'GET usage', 'Get own usage over time', usageSeriesSchema)
  @ApiQueryOf(ownUsageQuery, RANGE)
  get(@CurrentCaller() caller: Caller, @Query(new ZodPipe(ownUsageQuery)) query: OwnUsageQuery): Promise<UsageSeries> {
    return this.series.execute({ kind: 'tenant', tenantId: ownTenantOf(caller) }, query);
  }

  @AccessRoute('tenant', 'GET usage/denials', 'List own recent denials', denialSamplesSchema)
  @ApiQueryOf(ownDenialsQuery, DENIALS)
  denials(@CurrentCaller() caller: Caller, @Query(new ZodPipe(ownDenialsQuery)) query: z.infer<typeof ownDenialsQuery>): Promise<DenialSamples> {
    return this.denialSamples.execute({ kind: 'tenant', tenantId: ownTenantOf(caller) }, query.pageSize);
  }

  @Get('usage.csv')
  @ApiOperation({ summary: 'Export own usage as CSV' })
  @Access('tenant')
  @ApiQueryOf(ownUsageQuery, RANGE)
  @ApiCsv()
  async csv(@CurrentCaller() caller: Caller, @Query(new ZodPipe(ownUsageQuery)) query: OwnUsageQuery): Promise<StreamableFile> {
    return attachment(await this.exportUsage.execute({ kind: 'tenant', tenantId: ownTenantOf(caller) }, query));
  }
}
