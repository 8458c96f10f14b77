import { Inject, Injectable } from '@nestjs/common';
import {
  AppError,
  ErrorCode,
  ipSubject,
  rateLimitHeaders,
  rateLimitPolicy,
  type CheckAnswer,
  type CheckRequest,
  type CompiledPolicy,
  type CompiledTenant,
  type LeaseAnswer,
  type LimitState,
  type RefusalReason,
} from '@tollgate/domain';
import { type Decision, routedTally } from '@tollgate/limiter';
import { degradedReason, NO_TENANT } from '@tollgate/usage';
import { API_CONFIG, type ApiConfig } from '../../../config/config';
import { MetricsService } from '../../metrics/metrics.service';
import type { LimitSet } from '../../rules/limit-set';
import { type EnforcedRuleSet, routeOf } from '../../rules/enforced-rule-set';
import { RulesInForce } from '../../rules/rules-in-force';
import { OutageReporter } from '../outage-reporter';
import { QuotaStoreUnavailable, ResilientLimiter } from '../resilient-limiter';
import { UsageRecorder } from '../usage-recorder';

/** The service key that asks (its id, for its usage) and what it may see: the ids of its tenants, null = every tenant. */
export interface CheckScope {
  keyId: string | null;
  tenantIds: readonly string[] | null;
}

/** Whom a call was for, as far as it got: the tenant (NO_TENANT until known) and the keys it was made with. */
interface CallOf {
  tenantId: string;
  keyIds: string[];
}

export type CheckOperation = 'consume' | 'peek' | 'refund' | 'lease';

/** A check's body without its amount: `cost` (consume, peek, refund) or `max` (lease) is passed apart. */
export type CheckTarget = Omit<CheckRequest, 'cost'>;

/**
 * Decides one check. The tenant comes from the request's slug or is resolved from the tenant's API key (hashes
 * in the rule set in memory); the endpoint picks the most specific policy; the tenant's limits (tenant-wide) and
 * the policy's (per tenant, subject or client IP, as the policy says) are decided together, all or nothing, in
 * one Redis script call, at the request's cost times the policy's weight. A denial is a value.
 */
@Injectable()
export class CheckQuota {
  constructor(
    private readonly inForce: RulesInForce,
    private readonly limiter: ResilientLimiter,
    private readonly metrics: MetricsService,
    private readonly recorder: UsageRecorder,
    private readonly outages: OutageReporter,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  execute(scope: CheckScope, request: CheckTarget, amount: number, operation: 'lease'): Promise<LeaseAnswer>;
  execute(scope: CheckScope, request: CheckTarget, amount: number, operation?: Exclude<CheckOperation, 'lease'>): Promise<CheckAnswer>;
  async execute(scope: CheckScope, request: CheckTarget, amount: number, operation: CheckOperation = 'consume'): Promise<CheckAnswer | LeaseAnswer> {
    const call: CallOf = { tenantId: NO_TENANT, keyIds: scope.keyId === null ? [] : [scope.keyId] };
    try {
      const result = await this.decide(call, scope, request, amount, operation);
      this.countKeys(call, operation, result.allowed);
      return result;
    } catch (err) {
      // Failed closed without Redis: a decision, denied. Anything else (a tenant not found) decided nothing.
      if (err instanceof AppError && err.code === ErrorCode.REDIS_UNAVAILABLE) this.countKeys(call, operation, false);
      throw err;
    }
  }

  /** Each key's use, for usage: a decision (and whether it was denied), or another call (a peek, a refund). */
  private countKeys(call: CallOf, operation: CheckOperation, allowed: boolean): void {
    if (!this.recorder.enabled) return;
    const decided = operation === 'consume' || operation === 'lease';
    for (const keyId of call.keyIds) {
      this.recorder.countKey(call.tenantId, keyId, decided ? 'decisions' : 'other');
      if (decided && !allowed) this.recorder.countKey(call.tenantId, keyId, 'denied');
    }
  }

  private async decide(call: CallOf, scope: CheckScope, request: CheckTarget, amount: number, operation: CheckOperation): Promise<CheckAnswer | LeaseAnswer> {
    const ruleSet = this.inForce.enforced();
    const found = this.tenantOf(ruleSet, scope, request, call);
    if (found.tenant) call.tenantId = found.tenant.id;
    if ('reason' in found) return this.refused(ruleSet.version, found.reason, operation, request.endpoint, found.tenant, found.unnamed);
    const { tenant } = found;
    if (tenant.status !== 'active') return this.refused(ruleSet.version, 'tenant_suspended', operation, request.endpoint, tenant);

    const limitSet = ruleSet.limitSetFor(tenant, request.endpoint);
    const policySubject = limitSet.policy ? this.subjectFor(limitSet.policy, request) : undefined;
    // Every rule counts the tenant as a whole unless a policy counts a subject or an address: only then per rule.
    const ruleSubjects = policySubject === undefined ? undefined : limitSet.prepared.rules.map((_, i) => (i < limitSet.tenantRuleCount ? undefined : policySubject));
    // A lease takes units of the limits themselves; every other operation counts calls of the endpoint.
    const cost = operation === 'lease' ? amount : amount * limitSet.costWeight;
    // Usage: the script counts what it decides (a peek is not a decision), in the minute's hash of the tenant, which
    // this node lists for the rollup.
    const counting = this.recorder.enabled && operation !== 'peek';
    if (counting) this.recorder.active(tenant.id);
    // …per route too, whether or not a policy matched (the script caps the routes a tenant's minute names).
    const route = routeOf(request.endpoint);
    const tally = counting ? routedTally(limitSet.tally, route, this.config.usage.routesPerTenantMinute) : undefined;
    // A policy in shadow mode is decided with the tenant's limits in the same script call: it never denies, and when
    // only it would have, the tenant's limits alone are charged and the script counts the would-deny (a lease is never
    // in shadow). docs/adr/0021-one-request-one-decision.md.
    const shadowFrom = limitSet.policy?.mode === 'shadow' && (operation === 'consume' || operation === 'peek') ? limitSet.tenantRuleCount : undefined;
    // A policy that must not over-admit after a failover is answered once a replica holds the decision.
    const replicaAck = limitSet.policy?.replicaAck === true;
    const limiterRequest = { tenantId: tenant.id, cost, rules: limitSet.prepared, ruleSubjects, ...(tally ? { tally } : {}), ...(shadowFrom === undefined ? {} : { shadowFrom }), ...(replicaAck ? { replicaAck } : {}) };

    try {
      if (operation === 'lease') {
        const lease = await this.limiter.lease({ tenantId: tenant.id, max: amount, rules: limitSet.prepared, ruleSubjects, ...(tally ? { tally } : {}), ...(replicaAck ? { replicaAck } : {}) });
        const result = this.answer(ruleSet.version, limitSet, lease.decision, 'enforce');
        this.count(limitSet, result);
        if (!result.allowed) this.sampleDenial(limitSet, request, lease.decision, 'denied');
        return { ...result, granted: lease.granted };
      }
      const decision = await this.limiter[operation](limiterRequest);
      let mode: CheckAnswer['mode'] = shadowFrom === undefined ? 'enforce' : 'shadow';
      let wouldDeny: boolean | undefined;
      if (mode === 'shadow' && !decision.allowed) {
        // The tenant's own limits deny: that is enforced, shadow or not.
        mode = 'enforce';
      } else if (mode === 'shadow' && operation === 'consume') {
        // Admitted; the policy's rules say whether they would have denied.
        wouldDeny = decision.rules.slice(limitSet.tenantRuleCount).some((r) => r.retryAfterMs > 0);
      }
      const result = this.answer(ruleSet.version, limitSet, decision, mode);
      if (wouldDeny !== undefined) result.wouldDeny = wouldDeny;
      this.count(limitSet, result);
      if (operation === 'consume' && (wouldDeny || !result.allowed)) this.sampleDenial(limitSet, request, decision, wouldDeny ? 'shadow_denied' : 'denied');
      return result;
    } catch (err) {
      if (!(err instanceof QuotaStoreUnavailable)) throw err;
      return this.withoutRedis(err, operation, ruleSet.version, limitSet, route, limiterRequest);
    }
  }

  /** A denial (or a shadow would-deny) into the tenant's sample of recent denials: who, where, which limit. */
  private sampleDenial(limitSet: LimitSet, request: CheckTarget, decision: Decision, result: 'denied' | 'shadow_denied'): void {
    if (!this.recorder.enabled) return;
    const from = result === 'shadow_denied' ? limitSet.tenantRuleCount : 0;
    const refused = decision.rules.slice(from).find((r) => r.retryAfterMs > 0) ?? decision.rules[from];
    this.recorder.sample(limitSet.tenant.id, {
      policyId: limitSet.policy?.id ?? null,
      endpoint: request.endpoint,
      subject: request.subject ?? request.ip ?? '',
      limit: refused?.name ?? '',
      remaining: refused?.remaining ?? 0,
      result,
    });
  }

  /**
   * Redis did not decide (down, past the deadline, circuit open): the policy's failure mode does (checks without a
   * policy: `DEFAULT_FAILURE_MODE`). `open` passes, marked degraded; `closed` is a 503 with Retry-After; `local`
   * decides on this node's memory at limit ÷ nodes. A lease is never granted blind: it is a 503 in every mode.
   */
  private async withoutRedis(
    err: QuotaStoreUnavailable,
    operation: CheckOperation,
    ruleVersion: number,
    limitSet: LimitSet,
    route: string,
    request: Parameters<ResilientLimiter['locally']>[1],
  ): Promise<CheckAnswer> {
    const failureMode = limitSet.policy?.failureMode ?? this.config.failover.defaultMode;
    // Decisions Redis did not make are counted by this node (a refund or a peek is not a decision), with their failure
    // mode and cause as the reason (`open:deadline`): the overview's degraded drill-down reads them by cause.
    const decided = operation === 'consume' || operation === 'lease';
    const policyId = limitSet.policy?.id ?? null;
    if (failureMode === 'closed' || operation === 'lease') {
      err.answered(false);
      const cause = this.outages.record(err, 'closed');
      if (decided) this.recorder.count(limitSet.tenant.id, policyId, route, 'degraded_denied', degradedReason('closed', cause), 0);
      throw new AppError(ErrorCode.REDIS_UNAVAILABLE, 'the quota store is unavailable; retry shortly', undefined, { cause: err, retryAfterMs: err.retryAfterMs });
    }
    const cause = this.outages.record(err, failureMode);
    if (failureMode === 'local') {
      const decision = await this.limiter.locally(operation, { ...request, rules: limitSet.localShare });
      err.answered(decision.allowed);
      const result = { ...this.answer(ruleVersion, limitSet, decision, 'enforce'), degraded: true };
      this.count(limitSet, result);
      if (decided) this.recorder.count(limitSet.tenant.id, policyId, route, result.allowed ? 'degraded_allowed' : 'degraded_denied', degradedReason('local', cause), result.allowed ? request.cost : 0);
      return result;
    }
    // Open: nothing is known about the limits, so none are claimed.
    err.answered(true);
    const result: CheckAnswer = {
      allowed: true,
      mode: 'enforce',
      retryAfterMs: 0,
      ruleVersion,
      tenant: limitSet.tenant.slug,
      ...(limitSet.policy ? { policy: limitSet.policy.name } : {}),
      limits: [],
      headers: {},
      degraded: true,
    };
    this.count(limitSet, result);
    if (decided) this.recorder.count(limitSet.tenant.id, policyId, route, 'degraded_allowed', degradedReason('open', cause), request.cost);
    return result;
  }

  /**
   * The tenant a check is for, or why none may be decided for (a key that is unknown, revoked or expired, or of a tenant
   * the service may not check), with the tenant the key names when it names one (usage counts the refusal there).
   */
  private tenantOf(
    ruleSet: EnforcedRuleSet,
    scope: CheckScope,
    request: CheckTarget,
    call: CallOf,
  ): { tenant: CompiledTenant } | { reason: RefusalReason; tenant?: CompiledTenant; unnamed?: true } {
    // By id: a tenant created with the slug of a deleted one is not the tenant the key was scoped to.
    const visible = (tenant: CompiledTenant) => scope.tenantIds === null || scope.tenantIds.includes(tenant.id);
    if (request.tenant !== undefined) {
      const tenant = ruleSet.tenant(request.tenant);
      // A tenant the caller may not see is the same 404 as an unknown one.
      if (!tenant || !visible(tenant)) throw new AppError(ErrorCode.NOT_FOUND, 'tenant not found', 'tenant');
      return { tenant };
    }
    const hash = request.key === undefined ? undefined : this.inForce.keyHash(request.key);
    const key = hash === undefined ? undefined : ruleSet.tenantKey(hash);
    const tenant = key ? ruleSet.tenant(key.tenant) : undefined;
    if (!key || !tenant) {
      // Unknown or revoked: the same answer. A revoked key the rule set still keeps is counted under its tenant, and
      // as a call of that key (someone still uses it).
      const revoked = hash === undefined ? undefined : ruleSet.revokedTenantKey(hash);
      const owner = revoked ? ruleSet.tenant(revoked.tenant) : undefined;
      if (!revoked || !owner) return { reason: 'key_invalid' };
      call.keyIds.push(revoked.id);
      // Its answer is an unknown key's: the tenant is not named.
      return { reason: 'key_invalid', tenant: owner, unnamed: true };
    }
    // A valid key: used, whatever the answer.
    call.keyIds.push(key.id);
    // Counted under its tenant, but the answer does not name a tenant the service may not see.
    if (!visible(tenant)) return { reason: 'tenant_not_allowed', tenant, unnamed: true };
    if (key.expiresAt !== null && Date.parse(key.expiresAt) <= Date.now()) return { reason: 'key_expired', tenant };
    return { tenant };
  }

  /** Who a policy counts: the tenant as a whole, the request's subject, or the client's address (IPv6 per /64). */
  private subjectFor(policy: CompiledPolicy, request: CheckTarget): string | undefined {
    if (policy.scope === 'subject') return request.subject === undefined ? undefined : `s:${request.subject}`;
    if (policy.scope === 'ip') {
      const ip = request.ip === undefined ? null : ipSubject(request.ip);
      return ip === null ? undefined : `ip:${ip}`;
    }
    return undefined;
  }

  private answer(ruleVersion: number, limitSet: LimitSet, decision: Decision, mode: CheckAnswer['mode']): CheckAnswer {
    const limits: LimitState[] = decision.rules.map((r, i) => ({
      name: r.name,
      limit: r.limit,
      remaining: r.remaining,
      resetMs: r.resetMs,
      windowS: limitSet.windowS[i] ?? 0,
    }));
    // A shadow decision never denies: its headers say what the limits are, not "retry after".
    const allowed = decision.allowed || mode === 'shadow';
    // Every answer has the same fields in the same order (one object shape for the serializer); an absent one is
    // undefined, which JSON leaves out.
    return {
      allowed,
      mode,
      retryAfterMs: allowed ? 0 : decision.retryAfterMs,
      delayMs: decision.delayMs > 0 ? decision.delayMs : undefined,
      ruleVersion,
      tenant: limitSet.tenant.slug,
      policy: limitSet.policy?.name,
      limits,
      headers: rateLimitHeaders(limits, { allowed, retryAfterMs: decision.retryAfterMs, nowMs: decision.nowMs }, policyHeader(limitSet, limits)),
    };
  }

  /**
   * A check refused before the tenant key is looked up (forward-auth: no key, or one longer than any key): counted as
   * refused without a tenant, and as a use of the service key, as a refusal after the look-up is.
   */
  refuseUnread(scope: CheckScope, reason: 'key_missing' | 'key_invalid', endpoint: string): void {
    const call: CallOf = { tenantId: NO_TENANT, keyIds: scope.keyId === null ? [] : [scope.keyId] };
    this.countRefusal(reason, 'consume', endpoint);
    this.countKeys(call, 'consume', false);
  }

  /** A denial decided without counting (suspended tenant, bad key); usage counts it as refused (not a peek or a refund). */
  private refused(ruleVersion: number, reason: RefusalReason, operation: CheckOperation, endpoint: string, tenant?: CompiledTenant, unnamed?: true): CheckAnswer | LeaseAnswer {
    this.countRefusal(reason, operation, endpoint, tenant);
    const named = tenant && !unnamed ? { tenant: tenant.slug } : {};
    const result: CheckAnswer = { allowed: false, mode: 'enforce', retryAfterMs: 0, ruleVersion, ...named, limits: [], headers: {}, reason };
    return operation === 'lease' ? { ...result, granted: 0 } : result;
  }

  /**
   * A refusal in the decisions metric, and in usage under the tenant the key names (none: NO_TENANT) with its reason,
   * and under the route of `endpoint`.
   */
  private countRefusal(reason: RefusalReason | 'key_missing', operation: CheckOperation, endpoint: string, tenant?: CompiledTenant): void {
    this.metrics.decisionTally(tenant?.slug ?? '-', '-', reason, 'enforce').count += 1;
    if (operation === 'consume' || operation === 'lease') this.recorder.count(tenant?.id ?? NO_TENANT, null, routeOf(endpoint), 'refused', reason, 0);
  }

  private count(limitSet: LimitSet, result: CheckAnswer): void {
    const outcome = result.degraded ? (result.allowed ? 'degraded_allowed' : 'degraded_denied') : result.wouldDeny ? 'would_deny' : result.allowed ? 'allowed' : 'denied';
    this.metrics.decisionTally(limitSet.tenant.slug, limitSet.policy?.name ?? '-', outcome, result.mode).count += 1;
  }
}

/** The limit set's `RateLimit-Policy`, made again only when a decision reports other limits (the `local` mode's shares). */
function policyHeader(limitSet: LimitSet, limits: readonly LimitState[]): string {
  if (limits.length === limitSet.limits.length && limits.every((l, i) => l.limit === limitSet.limits[i])) return limitSet.rateLimitPolicy;
  return rateLimitPolicy(limits);
}
