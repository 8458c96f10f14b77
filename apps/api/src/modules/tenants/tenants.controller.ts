import { Body, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { freeText, type LimitsInForce, limitsInForceSchema, type LimitsUsed, limitsUsedSchema, type TenantCapsUsage, tenantCapsUsageSchema, overrideAnswerSchema, ruleVersionAnswerSchema, slug, TENANT_STATUSES, tenantAnswerSchema, tenantPageSchema, tenantViewSchema } from '@tollgate/domain';
import type { PrismaClient } from '@tollgate/db';
import { z } from 'zod';
import { Access } from '../../common/access.decorator';
import { BearerController, OperatorRoute } from '../../common/route';
import { ApiAnswer } from '../../common/api-json-body';
import { actorOf } from '../../common/audit';
import { type Caller, CurrentCaller } from '../../common/caller';
import { IdPipe } from '../../common/id.pipe';
import { idList } from '../../common/id-list';
import { ApiQueryOf } from '../../common/api-query';
import { ZodPipe } from '../../common/zod.pipe';
import { containsText } from '../../common/text-filter';
import { found } from '../../common/found';
import { pageOfRows, pageSizeQuery } from '../../common/page-size';
import { PRISMA } from '../../infra/infra.module';
import { toLimitBody } from '../limits/limit-views';
import { LimitsInForceService } from '../tenant-self/limits-in-force.service';
import { TenantCapsService } from '../tenant-self/tenant-caps.service';
import { AddLimitUseCase, RemoveLimitUseCase } from '../limits/use-cases/owner-limits.use-cases';
import { type NewTenant, newTenantSchema, type OverrideInput, overrideName, overrideSchema, type TenantPatch, tenantPatchSchema } from './dto/tenant.schemas';
import { tenantInclude, toTenantView, type TenantView } from './tenant-views';
import { CreateTenantUseCase, DeleteTenantUseCase, UpdateTenantUseCase } from './use-cases/tenants.use-cases';

const listQuery = z.strictObject({
  ...pageSizeQuery,
  /** The slug of the last tenant of the previous page. */
  cursor: slug.optional(),
  plan: z.uuid().optional(),
  status: z.enum(TENANT_STATUSES).optional(),
  /** Tenants whose slug or name contains this (case-insensitive). */
  q: freeText(100).optional(),
});

const limitsUsedQuery = z.strictObject({ id: idList('a tenant') });

/** Tenants: the operator's customers. Every write is one audited rule change and answers with its rule set version. */
@BearerController('tenants', 'v1/admin/tenants')
export class TenantsController {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    private readonly createTenant: CreateTenantUseCase,
    private readonly updateTenant: UpdateTenantUseCase,
    private readonly deleteTenant: DeleteTenantUseCase,
    private readonly addLimit: AddLimitUseCase,
    private readonly removeLimit: RemoveLimitUseCase,
    private readonly limitsInForce: LimitsInForceService,
    private readonly caps: TenantCapsService,
  ) {}

  /** Tenants ordered by slug, a page at a time (`nextCursor` is null on the last page), filtered by plan, status or text. */
  @OperatorRoute('GET', 'List tenants', tenantPageSchema)
  @ApiQueryOf(listQuery, { plan: 'plan id', q: 'part of a slug or name' })
  async list(@Query(new ZodPipe(listQuery)) query: z.infer<typeof listQuery>): Promise<{ items: TenantView[]; nextCursor: string | null }> {
    const rows = await this.prisma.tenant.findMany({
      where: {
        ...(query.cursor ? { slug: { gt: query.cursor } } : {}),
        ...(query.plan ? { planId: query.plan } : {}),
        ...(query.status ? { status: query.status } : {}),
        ...(query.q ? { OR: [{ slug: containsText(query.q) }, { name: containsText(query.q) }] } : {}),
      },
      orderBy: { slug: 'asc' },
      take: query.pageSize + 1,
      include: tenantInclude,
    });
    return pageOfRows(rows, query.pageSize, toTenantView, (last) => last.slug);
  }

  /**
   * The most used of each tenant's own limits now (the highest share of its capacity, read without charging): the
   * rows of a list page in one read. Tenants that do not exist are left out.
   */
  @Get('limits-used')
  @ApiOperation({ summary: "Get several tenants' most used limits" })
  @Access('operator')
  @ApiQueryOf(limitsUsedQuery, { id: 'a tenant id; repeat it for each (at most 200)' })
  @ApiAnswer(limitsUsedSchema)
  limitsUsed(@Query(new ZodPipe(limitsUsedQuery)) query: z.infer<typeof limitsUsedQuery>): Promise<LimitsUsed> {
    return this.limitsInForce.mostUsed(query.id.map((id) => id.toLowerCase()));
  }

  @OperatorRoute('GET :tenantId', 'Get a tenant', tenantViewSchema)
  async get(@Param('tenantId', IdPipe) tenantId: string): Promise<TenantView> {
    return toTenantView(found(await this.prisma.tenant.findUnique({ where: { id: tenantId }, include: tenantInclude }), 'tenant'));
  }

  /**
   * What the tenant is held to now, as the tenant sees it (`GET /v1/tenant/limits`): the limits and policies of the
   * rule set in force, with the live state of its own limits (read without charging).
   */
  @OperatorRoute('GET :tenantId/limits', "Get a tenant's limits in force", limitsInForceSchema)
  limits(@Param('tenantId', IdPipe) tenantId: string): Promise<LimitsInForce> {
    return this.limitsInForce.of(tenantId);
  }

  /** How many webhook endpoints and alert rules the tenant has, against its caps (`PATCH` with `caps` changes them). */
  @OperatorRoute('GET :tenantId/caps', "Get a tenant's caps", tenantCapsUsageSchema)
  capsOf(@Param('tenantId', IdPipe) tenantId: string): Promise<TenantCapsUsage> {
    return this.caps.usage(tenantId);
  }

  @OperatorRoute('POST', 'Create a tenant', tenantAnswerSchema, {
    body: newTenantSchema,
    example: { slug: 'initech', name: 'Initech', planId: '00000000-0000-4000-8000-000000000000', timeZone: 'America/Chicago' },
  })
  create(@CurrentCaller() caller: Caller, @Body(new ZodPipe(newTenantSchema)) input: NewTenant) {
    return this.createTenant.execute(actorOf(caller), input);
  }

  /**
   * Rename, move to another plan, suspend (`status: suspended` → every check denied), change the time zone, or the
   * caps on what its users can make (`caps: { webhookEndpoints: 25, alertRules: null }`, null: the default). A cap
   * lowered below what the tenant has takes nothing away: it only refuses new ones.
   */
  @OperatorRoute('PATCH :tenantId', 'Update a tenant', tenantAnswerSchema, { body: tenantPatchSchema, example: { status: 'suspended' } })
  update(@CurrentCaller() caller: Caller, @Param('tenantId', IdPipe) tenantId: string, @Body(new ZodPipe(tenantPatchSchema)) patch: TenantPatch) {
    return this.updateTenant.execute(actorOf(caller), tenantId, patch);
  }

  /** Deletes the tenant with its overrides, policies, keys and users (a new rule set version; audited with counts). */
  @OperatorRoute('DELETE :tenantId', 'Delete a tenant', ruleVersionAnswerSchema)
  remove(@CurrentCaller() caller: Caller, @Param('tenantId', IdPipe) tenantId: string) {
    return this.deleteTenant.execute(actorOf(caller), tenantId);
  }

  /** The tenant's own version of limit `name`: replaces the plan's limit of that name, or adds one. */
  @OperatorRoute('PUT :tenantId/overrides/:name', "Set a tenant's limit override", overrideAnswerSchema, {
    body: overrideSchema,
    example: { windowS: 60, limit: 500, algorithm: 'sliding_window', calendar: null },
  })
  async putOverride(
    @CurrentCaller() caller: Caller,
    @Param('tenantId', IdPipe) tenantId: string,
    @Param('name', new ZodPipe(overrideName)) name: string,
    @Body(new ZodPipe(overrideSchema)) input: OverrideInput,
  ) {
    const { limit, ruleVersion } = await this.addLimit.execute(actorOf(caller), 'tenant', tenantId, { name, ...input }, { replace: true });
    return { override: toLimitBody(limit), ruleVersion };
  }

  @OperatorRoute('DELETE :tenantId/overrides/:name', "Remove a tenant's limit override", ruleVersionAnswerSchema)
  deleteOverride(@CurrentCaller() caller: Caller, @Param('tenantId', IdPipe) tenantId: string, @Param('name', new ZodPipe(overrideName)) name: string) {
    return this.removeLimit.execute(actorOf(caller), 'tenant', tenantId, { name });
  }
}
