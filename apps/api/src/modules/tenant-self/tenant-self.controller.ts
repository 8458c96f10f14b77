import { Inject } from '@nestjs/common';
import { AppError, ErrorCode, keyListSchema, type LimitsInForce, limitsInForceSchema, ownTenantSchema, type TenantCapsUsage, tenantCapsUsageSchema } from '@tollgate/domain';
import type { PrismaClient } from '@tollgate/db';
import { AccessRoute, BearerController } from '../../common/route';
import { type Caller, CurrentCaller, ownTenantOf } from '../../common/caller';
import { PRISMA } from '../../infra/infra.module';
import { keyInclude, toKeyView, withUsage, type KeyWithUsage } from '../keys/key-views';
import { LimitsInForceService } from './limits-in-force.service';
import { TenantCapsService } from './tenant-caps.service';

export interface OwnTenantView {
  id: string;
  slug: string;
  name: string;
  status: 'active' | 'suspended';
  timeZone: string;
  plan: { slug: string; name: string };
}

/**
 * The read-only API of a tenant's own data, for its users (dashboard session) and its tenant keys. The tenant
 * is always the caller's: nothing in the request can name another one.
 */
@BearerController('tenant', 'v1/tenant')
export class TenantSelfController {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    private readonly limitsInForce: LimitsInForceService,
    private readonly caps: TenantCapsService,
  ) {}

  @AccessRoute('tenant', 'GET', 'Get own tenant', ownTenantSchema)
  async get(@CurrentCaller() caller: Caller): Promise<OwnTenantView> {
    const tenant = await this.prisma.tenant.findUnique({ where: { id: ownTenantOf(caller) }, include: { plan: { select: { slug: true, name: true } } } });
    if (!tenant) throw new AppError(ErrorCode.NOT_FOUND, 'tenant not found');
    return { id: tenant.id, slug: tenant.slug, name: tenant.name, status: tenant.status, timeZone: tenant.timeZone, plan: tenant.plan };
  }

  /**
   * The limits and policies in force for the tenant, from the rule set every node enforces, with the live state of
   * its own limits (read without charging).
   */
  @AccessRoute('tenant', 'GET limits', 'Get own limits in force', limitsInForceSchema)
  limits(@CurrentCaller() caller: Caller): Promise<LimitsInForce> {
    return this.limitsInForce.of(ownTenantOf(caller));
  }

  /** How many webhook endpoints and alert rules the tenant has, against its caps (an operator may raise them). */
  @AccessRoute('tenant', 'GET caps', 'Get own caps', tenantCapsUsageSchema)
  capsOf(@CurrentCaller() caller: Caller): Promise<TenantCapsUsage> {
    return this.caps.usage(ownTenantOf(caller));
  }

  /** The tenant's API keys (never a secret or a hash), newest first. */
  @AccessRoute('tenant', 'GET keys', 'List own API keys', keyListSchema)
  async keys(@CurrentCaller() caller: Caller): Promise<{ items: KeyWithUsage[] }> {
    const rows = await this.prisma.apiKey.findMany({ where: { tenantId: ownTenantOf(caller), kind: 'tenant' }, orderBy: { createdAt: 'desc' }, take: 500, include: keyInclude });
    return { items: await withUsage(this.prisma, rows.map(toKeyView)) };
  }
}
