import { Controller, Get, Inject } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { AppError, type CompiledPolicy, ErrorCode, keyListSchema, type LimitSpec, ownLimitsSchema, ownTenantSchema } from '@tollgate/domain';
import type { PrismaClient } from '@tollgate/db';
import { effectivePolicies } from '@tollgate/rules';
import { Access } from '../../common/access.decorator';
import { ApiAnswer } from '../../common/api-json-body';
import { type Caller, CurrentCaller, ownTenantOf } from '../../common/caller';
import { PRISMA } from '../../infra/infra.module';
import { keyInclude, toKeyView, type KeyView } from '../keys/key-views';
import { RuleCache } from '../rules/rule-cache.service';

export interface OwnTenantView {
  id: string;
  slug: string;
  name: string;
  status: 'active' | 'suspended';
  timeZone: string;
  plan: { slug: string; name: string };
}

export interface OwnLimitsView {
  /** The rule set version these limits come from: what every node enforces now. */
  ruleVersion: number;
  /** The tenant's limits: its plan's, with its overrides applied. */
  limits: LimitSpec[];
  /** The endpoint policies that apply to the tenant (its plan's, its own replacing those of the same route). */
  policies: (CompiledPolicy & { route: string })[];
}

/**
 * The read-only API of a tenant's own data, for its users (dashboard session) and its tenant keys. The tenant
 * is always the caller's: nothing in the request can name another one.
 */
@ApiTags('tenant')
@ApiBearerAuth()
@Controller('v1/tenant')
export class TenantSelfController {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    private readonly rules: RuleCache,
  ) {}

  @Get()
  @Access('tenant')
  @ApiAnswer(ownTenantSchema)
  async get(@CurrentCaller() caller: Caller): Promise<OwnTenantView> {
    const tenant = await this.prisma.tenant.findUnique({ where: { id: ownTenantOf(caller) }, include: { plan: { select: { slug: true, name: true } } } });
    if (!tenant) throw new AppError(ErrorCode.NOT_FOUND, 'tenant not found');
    return { id: tenant.id, slug: tenant.slug, name: tenant.name, status: tenant.status, timeZone: tenant.timeZone, plan: tenant.plan };
  }

  /** The limits and policies in force for the tenant, from the rule set every node enforces. */
  @Get('limits')
  @Access('tenant')
  @ApiAnswer(ownLimitsSchema)
  async limits(@CurrentCaller() caller: Caller): Promise<OwnLimitsView> {
    const tenantId = ownTenantOf(caller);
    const ruleSet = this.rules.current();
    const compiled = Object.values(ruleSet.tenants).find((t) => t.id === tenantId);
    if (!compiled) {
      // Created a moment ago and not compiled yet, or unknown: say which.
      const exists = await this.prisma.tenant.count({ where: { id: tenantId } });
      if (!exists) throw new AppError(ErrorCode.NOT_FOUND, 'tenant not found');
      return { ruleVersion: ruleSet.version, limits: [], policies: [] };
    }
    const policies = Object.entries(effectivePolicies(ruleSet.policies, compiled.slug, compiled.plan))
      .map(([route, policy]) => ({ route, ...policy }))
      .sort((a, b) => a.route.localeCompare(b.route));
    return { ruleVersion: ruleSet.version, limits: compiled.limits, policies };
  }

  /** The tenant's API keys (never a secret or a hash), newest first. */
  @Get('keys')
  @Access('tenant')
  @ApiAnswer(keyListSchema)
  async keys(@CurrentCaller() caller: Caller): Promise<{ items: KeyView[] }> {
    const rows = await this.prisma.apiKey.findMany({ where: { tenantId: ownTenantOf(caller), kind: 'tenant' }, orderBy: { createdAt: 'desc' }, take: 500, include: keyInclude });
    return { items: rows.map(toKeyView) };
  }
}
