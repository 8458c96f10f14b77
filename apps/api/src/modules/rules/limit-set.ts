import { rateLimitPolicy, type CompiledPolicy, type CompiledTenant, type Region } from '@tollgate/domain';
import { type LimitRule, prepareRules, type PreparedRules, type Tally, tallyText } from '@tollgate/limiter';
import { toLimitRule } from '@tollgate/rules';
import { tallyBase, usagePrefix } from '@tollgate/usage';

/**
 * The limits a check of one tenant under one endpoint policy (or none) is decided on, with everything else the check
 * needs, built once per rule set version (docs/adr/0012-the-decision-plan.md): the engine's rules prepared (down to
 * the script's arguments and key parts), this node's share of them for the `local` failure mode, each one's window
 * for the answer, the `RateLimit-Policy` header, and how the script counts it. A check converts nothing.
 */
export interface LimitSet {
  readonly tenant: CompiledTenant;
  /** The policy decided with the tenant's limits; null when none matches or it is `off`. */
  readonly policy: CompiledPolicy | null;
  /** The tenant's limits (its plan's with its overrides), then the policy's, named `<policy>-<limit>`: prepared for the engines. */
  readonly prepared: PreparedRules;
  /** The same rules at this node's share (each limit ÷ the nodes, at least 1), for the `local` failure mode. */
  readonly localShare: PreparedRules;
  /** How many of the rules, from the first, are the tenant's own (a policy in shadow mode: those it is charged to alone). */
  readonly tenantRuleCount: number;
  /** Each rule's window in seconds, for the answer's `limits`. */
  readonly windowS: readonly number[];
  /** Each rule's limit: the header below is right while a decision reports these (the `local` mode reports shares). */
  readonly limits: readonly number[];
  /** `RateLimit-Policy` for `limits`. */
  readonly rateLimitPolicy: string;
  /** Units one call of the endpoint costs (the policy's weight; 1 without a policy). */
  readonly costWeight: number;
  /**
   * How the limit script counts a decision of this limit set into usage (docs/adr/0015-usage-counting-and-rollups.md): the
   * policy's fields, and the rules' names for the reason of a denial or of a shadow policy's would-deny.
   */
  readonly tally: Tally;
}

/**
 * The limit set of a tenant's own limits, for checks that no policy applies to; `localNodes`: the nodes the `local` failure
 * mode divides each limit among.
 */
export function tenantLimitSet(tenant: CompiledTenant, localNodes: number): LimitSet {
  const rules = tenant.limits.map((l) => toLimitRule(l, tenant.timeZone));
  return Object.freeze({
    ...shape(tenant, null, rules, tenant.limits.map((l) => l.windowS), localNodes),
    tally: tallyOf(tenant.id, null, rules),
    tenantRuleCount: rules.length,
  });
}

/**
 * The limit set of a tenant's limits and `policy`'s together (`own`: the tenant's own limit set). A policy that is one
 * quota across regions (`regionScope: global`) has its limits decided at `region`'s share (docs/adr/0025-one-quota-across-regions.md); with no
 * regions set, the installation is one region and holds the whole limit.
 */
export function policyLimitSet(own: LimitSet, policy: CompiledPolicy, localNodes: number, region: Region | null = null): LimitSet {
  const { tenant } = own;
  const regions = policy.regionScope === 'global' && region ? { regions: { index: region.index, count: region.names.length } } : {};
  const extra = policy.limits.map((l) => ({ ...toLimitRule({ ...l, name: `${policy.name}-${l.name}` }, tenant.timeZone), ...regions }));
  const rules = [...own.prepared.rules, ...extra];
  return Object.freeze({
    ...shape(tenant, policy, rules, [...own.windowS, ...policy.limits.map((l) => l.windowS)], localNodes),
    tally: tallyOf(tenant.id, policy, rules),
    tenantRuleCount: own.prepared.rules.length,
  });
}

/** The limit set's tally (see LimitSet.tally): the fields name the policy, a denial the rule that refused. */
function tallyOf(tenantId: string, policy: CompiledPolicy | null, rules: readonly LimitRule[]): Tally {
  return Object.freeze({ key: usagePrefix(tenantId), text: tallyText(tallyBase(policy?.id ?? null), rules.map((r) => r.name)) });
}

function shape(tenant: CompiledTenant, policy: CompiledPolicy | null, rules: LimitRule[], windowS: number[], localNodes: number) {
  const limits = rules.map((r) => r.limit);
  return {
    tenant,
    policy,
    prepared: prepareRules(rules, tenant.id),
    localShare: prepareRules(shareOf(rules, localNodes), tenant.id),
    windowS: Object.freeze(windowS),
    limits: Object.freeze(limits),
    rateLimitPolicy: rateLimitPolicy(rules.map((r, i) => ({ name: r.name, limit: r.limit, windowS: windowS[i]! }))),
    costWeight: policy?.cost ?? 1,
  };
}

/** Each limit ÷ the number of nodes, at least 1 (buckets: their burst too). */
function shareOf(rules: readonly LimitRule[], nodes: number): LimitRule[] {
  const part = (n: number) => Math.max(1, Math.floor(n / nodes));
  return rules.map((r) => ({ ...r, limit: part(r.limit), ...(r.burst === undefined ? {} : { burst: part(r.burst) }) }));
}
