import { rateLimitPolicy, type CompiledPolicy, type CompiledTenant } from '@tollgate/domain';
import { type LimitRule, type Tally, tallyText } from '@tollgate/limiter';
import { toLimitRule } from '@tollgate/rules';
import { tallyBase, usagePrefix } from '@tollgate/usage';

/**
 * Everything a check of one tenant under one endpoint policy (or none) needs, built once per rule set version
 * (docs/adr/0012-the-decision-plan.md): the engine's rules, each one's window for the answer, the
 * `RateLimit-Policy` header, and for a policy the plan of the tenant's limits alone. A check converts nothing.
 */
export interface DecisionPlan {
  readonly tenant: CompiledTenant;
  /** The policy decided with the tenant's limits; null when none matches or it is `off`. */
  readonly policy: CompiledPolicy | null;
  /** The tenant's limits (plan with overrides), then the policy's, named `<policy>-<limit>`. */
  readonly rules: readonly LimitRule[];
  /** The first `tenantRules` rules are the tenant's own. */
  readonly tenantRules: number;
  /** Each rule's window in seconds, for the answer's `limits`. */
  readonly windowS: readonly number[];
  /** Each rule's limit: the header below is right while a decision reports these (the `local` mode reports shares). */
  readonly limits: readonly number[];
  /** `RateLimit-Policy` for `limits`. */
  readonly rateLimitPolicy: string;
  /** The plan of the tenant's limits alone (itself when there is no policy): what a shadow policy's would-deny charges. */
  readonly tenantOnly: DecisionPlan;
  /** Units one call of the endpoint costs (the policy's weight; 1 without a policy). */
  readonly costWeight: number;
  /**
   * How the limit script counts a decision of this plan into usage (docs/adr/0015-usage-counting-and-rollups.md): a
   * denial by a rule of a policy in shadow mode is left to the caller, who counts the would-deny with `shadowTallies`.
   */
  readonly tally: Tally;
  /** The same, every denial counted (a lease is never in shadow). */
  readonly enforcedTally: Tally;
  /**
   * A policy in shadow mode: per rule name of the policy, the tally of the call that charges the tenant's own limits
   * after that rule would have denied (counted as `shadow_denied` with that name). Empty otherwise.
   */
  readonly shadowTallies: ReadonlyMap<string, Tally>;
}

/** The plan of a tenant's own limits, for checks that no policy applies to. */
export function tenantPlan(tenant: CompiledTenant): DecisionPlan {
  const rules = tenant.limits.map((l) => toLimitRule(l, tenant.timeZone));
  const plan: { -readonly [K in keyof DecisionPlan]: DecisionPlan[K] | null } = {
    ...shape(tenant, null, rules, tenant.limits.map((l) => l.windowS)),
    ...tallies(tenant.id, null, rules, rules.length),
    tenantRules: rules.length,
    tenantOnly: null,
  };
  plan.tenantOnly = plan as DecisionPlan;
  return Object.freeze(plan as DecisionPlan);
}

/** The plan of a tenant's limits and `policy`'s together (`own`: the tenant's plan). */
export function policyPlan(own: DecisionPlan, policy: CompiledPolicy): DecisionPlan {
  const { tenant } = own;
  const extra = policy.limits.map((l) => toLimitRule({ ...l, name: `${policy.name}-${l.name}` }, tenant.timeZone));
  const rules = [...own.rules, ...extra];
  return Object.freeze({
    ...shape(tenant, policy, rules, [...own.windowS, ...policy.limits.map((l) => l.windowS)]),
    ...tallies(tenant.id, policy, rules, own.rules.length),
    tenantRules: own.rules.length,
    tenantOnly: own,
  });
}

/** The plan's tallies (see DecisionPlan.tally): the fields name the policy, a denial the rule that refused. */
function tallies(tenantId: string, policy: CompiledPolicy | null, rules: readonly LimitRule[], tenantRules: number) {
  const key = usagePrefix(tenantId);
  const base = tallyBase(policy?.id ?? null);
  const names = rules.map((r) => r.name);
  const enforcedTally = Object.freeze({ key, text: tallyText(base, names) });
  const shadow = policy?.mode === 'shadow';
  const shadowTallies = new Map<string, Tally>();
  if (shadow) {
    const own = names.slice(0, tenantRules);
    for (const name of names.slice(tenantRules)) shadowTallies.set(name, Object.freeze({ key, text: tallyText(base, own, { admittedAs: name }) }));
  }
  return {
    tally: shadow ? Object.freeze({ key, text: tallyText(base, names, { shadowFrom: tenantRules + 1 }) }) : enforcedTally,
    enforcedTally,
    shadowTallies,
  };
}

function shape(tenant: CompiledTenant, policy: CompiledPolicy | null, rules: LimitRule[], windowS: number[]) {
  const limits = rules.map((r) => r.limit);
  return {
    tenant,
    policy,
    rules: Object.freeze(rules),
    windowS: Object.freeze(windowS),
    limits: Object.freeze(limits),
    rateLimitPolicy: rateLimitPolicy(rules.map((r, i) => ({ name: r.name, limit: r.limit, windowS: windowS[i]! }))),
    costWeight: policy?.cost ?? 1,
  };
}
