import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode, rateLimitHeaders, type CheckRequest, type CheckResult } from '@tollgate/domain';
import { RedisEngine } from '@tollgate/limiter';
import { MetricsService } from '../../metrics/metrics.service';
import { RuleCache } from '../../rules/rule-cache.service';

/** What the service key that asks may see: null = every tenant. */
export interface CheckScope {
  tenants: readonly string[] | null;
}

/**
 * Decides one check: the tenant's limits from the rule set in memory, each with its algorithm, all of them
 * checked and charged in one Redis script call. A denial is a value; a tenant the caller may not see is the same 404 as an
 * unknown one.
 */
@Injectable()
export class CheckQuota {
  constructor(
    private readonly rules: RuleCache,
    private readonly limiter: RedisEngine,
    private readonly metrics: MetricsService,
  ) {}

  async execute(scope: CheckScope, request: CheckRequest): Promise<CheckResult> {
    const ruleSet = this.rules.current();
    // Checking by the tenant's key lands with the key index of the rule set (next commit).
    if (request.tenant === undefined) throw new AppError(ErrorCode.VALIDATION_FAILED, 'checks by key are not enabled on this node yet', 'key');
    const tenant = ruleSet.tenants[request.tenant];
    if (!tenant || (scope.tenants !== null && !scope.tenants.includes(request.tenant))) {
      throw new AppError(ErrorCode.NOT_FOUND, 'tenant not found', 'tenant');
    }
    if (tenant.status !== 'active') {
      this.metrics.decisions.inc({ tenant: tenant.slug, result: 'suspended' });
      return { allowed: false, mode: 'enforce', retryAfterMs: 0, ruleVersion: ruleSet.version, limits: [], headers: {}, reason: 'tenant_suspended' };
    }
    const stop = this.metrics.decisionSeconds.startTimer();
    const decision = await this.limiter
      .consume({ tenantId: tenant.id, subject: request.subject, cost: request.cost, rules: this.rules.limitRulesOf(tenant.slug) })
      .catch((err: unknown) => {
        if (err instanceof AppError) throw err;
        throw new AppError(ErrorCode.REDIS_UNAVAILABLE, 'the quota store is unavailable; retry shortly', undefined, { cause: err });
      })
      .finally(stop);
    this.metrics.decisions.inc({ tenant: tenant.slug, result: decision.allowed ? 'allowed' : 'denied' });
    const limits = decision.rules.map((r, i) => ({
      name: r.name,
      limit: r.limit,
      remaining: r.remaining,
      resetMs: r.resetMs,
      windowS: tenant.limits[i]?.windowS ?? 0,
    }));
    return {
      allowed: decision.allowed,
      mode: 'enforce',
      retryAfterMs: decision.retryAfterMs,
      ...(decision.delayMs > 0 ? { delayMs: decision.delayMs } : {}),
      ruleVersion: ruleSet.version,
      limits,
      headers: rateLimitHeaders(limits, decision),
    };
  }
}
