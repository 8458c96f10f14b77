import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppError, ErrorCode, type LimitsInForce, type LiveLimit } from '@tollgate/domain';
import type { PrismaClient } from '@tollgate/db';
import { type LimitRule, RedisEngine, resolveRule } from '@tollgate/limiter';
import { effectivePolicies } from '@tollgate/rules';
import { describeError } from '../../common/describe-error';
import { PRISMA } from '../../infra/infra.module';
import { RuleCache } from '../rules/rule-cache.service';

/**
 * What a tenant is held to now: the limits and policies of the rule set every node enforces, and the live state of
 * the tenant's own limits. Shown to the tenant (`GET /v1/tenant/limits`) and to operators.
 */
@Injectable()
export class LimitsInForceService {
  private readonly log = new Logger(LimitsInForceService.name);

  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    private readonly rules: RuleCache,
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
      .map(([route, policy]) => ({ route, ...policy }))
      .sort((a, b) => a.route.localeCompare(b.route));
    // An endpoint that names no route: the plan of the tenant's own limits, the very rules its checks run.
    const { rules } = enforced.planFor(compiled, '');
    return { ruleVersion: ruleSet.version, limits: compiled.limits, policies, live: await this.live(tenantId, rules) };
  }

  /** Each rule's state, or null when Redis did not answer (the limits are still shown). */
  private async live(tenantId: string, rules: readonly LimitRule[]): Promise<LiveLimit[] | null> {
    try {
      return await Promise.all(rules.map((rule, i) => this.peek(tenantId, rule, i)));
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
  private async peek(tenantId: string, rule: LimitRule, index: number): Promise<LiveLimit> {
    const { capacity } = resolveRule(rule, index);
    const decision = await this.engine.peek({ tenantId, cost: capacity, rules: [rule] });
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
