import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppError, type CompiledTenant, ErrorCode, type LimitsInForce, type LimitsUsed, type LiveLimit, type PlansAtLimit } from '@tollgate/domain';
import type { PrismaClient } from '@tollgate/db';
import { type LimitRule, prepareRules, RedisEngine } from '@tollgate/limiter';
import { effectivePolicies } from '@tollgate/rules';
import { describeError } from '../../common/describe-error';
import { PRISMA } from '../../infra/infra.module';
import { RulesInForce } from '../rules/rules-in-force';

/** The most tenants of a plan whose limits one read of plans at their limit peeks. */
export const AT_LIMIT_CHECKED = 1000;
/** Tenants whose rules are peeked together: their peeks are in flight at once. */
const PEEKS_AT_ONCE = 100;

/**
 * What a tenant is held to now: the limits and policies of the rule set every node enforces, and the live state of
 * the tenant's own limits. Shown to the tenant (`GET /v1/tenant/limits`) and to operators.
 */
@Injectable()
export class LimitsInForceService {
  private readonly log = new Logger(LimitsInForceService.name);

  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    private readonly rules: RulesInForce,
    private readonly engine: RedisEngine,
  ) {}

  async of(tenantId: string): Promise<LimitsInForce> {
    const enforced = this.rules.enforced();
    const { ruleSet } = enforced;
    const compiled = Object.values(ruleSet.tenants).find((t) => t.id === tenantId);
    if (!compiled) {
      // Created a moment ago and not compiled yet, or unknown: say which.
      const exists = await this.prisma.tenant.count({ where: { id: tenantId } });
      if (!exists) throw new AppError(ErrorCode.NOT_FOUND, 'tenant not found');
      return { ruleVersion: ruleSet.version, limits: [], policies: [], live: [] };
    }
    const policies = Object.entries(effectivePolicies(ruleSet.policies, compiled.slug, compiled.plan))
      .map(([route, policy]) => ({ route, ...policy, replicaAck: policy.replicaAck ?? false, regionScope: policy.regionScope ?? ('region' as const) }))
      .sort((a, b) => a.route.localeCompare(b.route));
    // An endpoint that names no route: the plan of the tenant's own limits, the very rules its checks run.
    const { prepared: rules } = enforced.limitSetFor(compiled, '');
    return { ruleVersion: ruleSet.version, limits: compiled.limits, policies, live: await this.live(tenantId, rules.rules) };
  }

  /**
   * The most used of each tenant's own limits now (the highest share of its capacity), for the tenants of `tenantIds`
   * that exist, in that order: a list page's rows in one read, every rule peeked at once.
   */
  async mostUsed(tenantIds: readonly string[]): Promise<LimitsUsed> {
    const existing = new Set((await this.prisma.tenant.findMany({ where: { id: { in: [...tenantIds] } }, select: { id: true } })).map((t) => t.id));
    const ids = [...new Set(tenantIds)].filter((id) => existing.has(id));
    const states = await this.statesOf(ids);
    const compiled = this.compiledById();
    return {
      live: states !== null,
      items: ids.map((tenantId) => {
        const rules = states?.get(tenantId) ?? [];
        let most: (LiveLimit & { share: number }) | null = null;
        for (const state of rules) {
          const share = state.limit > 0 ? Math.min(1, Math.max(0, state.used / state.limit)) : 0;
          if (most === null || share > most.share) most = { ...state, share };
        }
        return { tenantId, limits: this.rulesOf(tenantId, compiled)?.length ?? 0, mostUsed: most };
      }),
    };
  }

  /**
   * For each plan of `planIds` that exists, in that order: its tenants, and how many of them are at one of their
   * limits now (a limit that would refuse a request of cost 1). At most AT_LIMIT_CHECKED tenants are read per plan, the
   * first by slug: `checked` says how many were.
   */
  async atLimit(planIds: readonly string[]): Promise<PlansAtLimit> {
    const plans = await this.prisma.plan.findMany({ where: { id: { in: [...planIds] } }, select: { id: true, _count: { select: { tenants: true } } } });
    const tenantCount = new Map(plans.map((p) => [p.id, p._count.tenants]));
    const ids = [...new Set(planIds)].filter((id) => tenantCount.has(id));
    const tenantsOf = new Map<string, string[]>();
    for (const planId of ids) {
      const tenants = await this.prisma.tenant.findMany({ where: { planId }, orderBy: { slug: 'asc' }, take: AT_LIMIT_CHECKED, select: { id: true } });
      tenantsOf.set(planId, tenants.map((t) => t.id));
    }
    const states = await this.statesOf([...tenantsOf.values()].flat());
    return {
      live: states !== null,
      items: ids.map((planId) => {
        const checked = tenantsOf.get(planId)!;
        const atLimit = states === null ? 0 : checked.filter((id) => (states.get(id) ?? []).some((state) => state.remaining < 1)).length;
        return { planId, tenants: tenantCount.get(planId)!, checked: states === null ? 0 : checked.length, atLimit };
      }),
    };
  }

  /** The rules a tenant's checks run without an endpoint policy, as this node enforces them (undefined: not compiled yet). */
  private rulesOf(tenantId: string, compiled: ReadonlyMap<string, CompiledTenant>): readonly LimitRule[] | undefined {
    const tenant = compiled.get(tenantId);
    return tenant && this.rules.enforced().limitSetFor(tenant, '').prepared.rules;
  }

  private compiledById(): Map<string, CompiledTenant> {
    return new Map(Object.values(this.rules.enforced().ruleSet.tenants).map((t) => [t.id, t]));
  }

  /** The state of each rule of each tenant, PEEKS_AT_ONCE tenants at a time; null when Redis did not answer. */
  private async statesOf(tenantIds: readonly string[]): Promise<Map<string, LiveLimit[]> | null> {
    const compiled = this.compiledById();
    const states = new Map<string, LiveLimit[]>();
    try {
      for (let i = 0; i < tenantIds.length; i += PEEKS_AT_ONCE) {
        const batch = tenantIds.slice(i, i + PEEKS_AT_ONCE);
        const read = await Promise.all(batch.map((id) => Promise.all((this.rulesOf(id, compiled) ?? []).map((rule) => this.peek(id, rule)))));
        batch.forEach((id, n) => states.set(id, read[n]!));
      }
    } catch (err) {
      this.log.warn(`the live state of limits is unavailable: ${describeError(err).message}`);
      return null;
    }
    return states;
  }

  /** Each rule's state, or null when Redis did not answer (the limits are still shown). */
  private async live(tenantId: string, rules: readonly LimitRule[]): Promise<LiveLimit[] | null> {
    try {
      return await Promise.all(rules.map((rule) => this.peek(tenantId, rule)));
    } catch (err) {
      this.log.warn(`the live state of limits is unavailable: ${describeError(err).message}`);
      return null;
    }
  }

  /**
   * One rule's state, read by a peek of its whole capacity: a rule that is not whole refuses it and answers its
   * state as it is (a peek that admits answers the state after the cost, which is not what is there); a rule that
   * admits it is whole. Peeks charge and count nothing.
   */
  private async peek(tenantId: string, rule: LimitRule): Promise<LiveLimit> {
    const prepared = prepareRules([rule]);
    const { capacity } = prepared.rules[0]!;
    const decision = await this.engine.peek({ tenantId, cost: capacity, rules: prepared });
    const outcome = decision.rules[0]!;
    if (decision.allowed) return { name: rule.name, limit: capacity, used: 0, remaining: capacity, resetsAt: null };
    return {
      name: rule.name,
      limit: capacity,
      used: capacity - outcome.remaining,
      remaining: outcome.remaining,
      resetsAt: outcome.resetMs > 0 ? new Date(decision.nowMs + outcome.resetMs).toISOString() : null,
    };
  }
}
