import { type CompiledPolicies, type Limit, type LimitShown, type CompiledPolicy, own, policyLimitName, type RuleSetBody, toLimitSpec } from '@tollgate/domain';
import { resolveRule } from '@tollgate/limiter';
import { toLimitRule } from './limit-rules';
import { sortedBy } from './sorted-by';

/**
 * A limit as the control plane stores it (plan limit, override, policy limit): the domain's limit, its algorithm a
 * column's text until the rule set schema judges it.
 */
export type SourceLimit = Omit<LimitShown, 'algorithm'> & Pick<Limit, 'name'> & { algorithm: string };

/** An endpoint policy row: it belongs to a plan or to a tenant (exactly one of `planId`, `tenantId`). */
export interface SourcePolicy {
  id: string;
  planId: string | null;
  tenantId: string | null;
  name: string;
  method: string;
  pattern: string;
  cost: number;
  scope: string;
  mode: string;
  failureMode: string;
  replicaAck?: boolean;
  regionScope?: string;
  limits: SourceLimit[];
}

/** The key of a policy in its owner's table: its method and pattern, `GET /v1/items/*`. */
export function routeKey(policy: { method: string; pattern: string }): string {
  return `${policy.method} ${policy.pattern}`;
}

/** A compiled limit: shortest window first, `burst` and `calendar` only when set. */
export function compileLimits(limits: SourceLimit[]) {
  return [...limits].sort((a, b) => a.windowS - b.windowS || a.name.localeCompare(b.name)).map(toLimitSpec);
}

/**
 * Groups policies by owner (plan slug, tenant slug) and route. Refuses a policy without exactly one known owner
 * and two policies of one owner for the same route. The result is validated by the rule set schema next.
 */
export function groupPolicies(
  policies: SourcePolicy[],
  planSlugs: ReadonlyMap<string, string>,
  tenantSlugs: ReadonlyMap<string, string>,
  invalid: (message: string) => Error,
): { plans: Record<string, Record<string, unknown>>; tenants: Record<string, Record<string, unknown>> } {
  // Maps, not objects: owners are slugs, which may be any name (`constructor` included).
  const grouped = { plans: new Map<string, Map<string, unknown>>(), tenants: new Map<string, Map<string, unknown>>() };
  for (const p of policies) {
    if ((p.planId === null) === (p.tenantId === null)) throw invalid(`policy ${p.name} (${routeKey(p)}) must belong to exactly one plan or tenant`);
    const [kind, owner] = p.planId !== null ? (['plans', planSlugs.get(p.planId)] as const) : (['tenants', tenantSlugs.get(p.tenantId!)] as const);
    if (owner === undefined) throw invalid(`policy ${p.name} (${routeKey(p)}) belongs to an unknown ${kind === 'plans' ? 'plan' : 'tenant'}`);
    let table = grouped[kind].get(owner);
    if (!table) grouped[kind].set(owner, (table = new Map()));
    const key = routeKey(p);
    if (table.has(key)) throw invalid(`${kind}.${owner} has two policies for ${key}`);
    table.set(key, {
      id: p.id,
      name: p.name,
      method: p.method,
      pattern: p.pattern,
      cost: p.cost,
      scope: p.scope,
      mode: p.mode,
      failureMode: p.failureMode,
      ...(p.replicaAck ? { replicaAck: true } : {}),
      ...(p.regionScope === 'global' ? { regionScope: 'global' } : {}),
      limits: compileLimits(p.limits),
    });
  }
  // Owners and routes in order: the same rows in any order compile to the same rule set.
  const tables = (owners: Map<string, Map<string, unknown>>) =>
    Object.fromEntries(sortedBy([...owners], ([owner]) => owner).map(([owner, table]) => [owner, Object.fromEntries(sortedBy([...table], ([route]) => route))]));
  return { plans: tables(grouped.plans), tenants: tables(grouped.tenants) };
}

/**
 * What the schema cannot see about policies: limits the engine could not run (under their names in check answers),
 * a cost no request could ever pay, and, for each tenant, clashes in what applies to it: its plan's policies with
 * its own (its own replaces the plan's of the same route), whose names and limit names must be distinct from each
 * other and from the tenant's own limits (they name the limiter's counters).
 */
export function checkPolicies(body: RuleSetBody, invalid: (message: string) => Error): void {
  for (const [kind, tables] of Object.entries(body.policies) as [string, Record<string, Record<string, CompiledPolicy>>][]) {
    for (const [owner, table] of Object.entries(tables)) {
      for (const [key, policy] of Object.entries(table)) checkPolicy(policy, `policies.${kind}.${owner}.${key}`, invalid);
    }
  }
  for (const tenant of Object.values(body.tenants)) {
    const applying = effectivePolicies(body.policies, tenant.slug, tenant.plan);
    const names = new Map<string, string>(tenant.limits.map((l) => [l.name, `limit ${l.name}`]));
    const policyNames = new Map<string, string>();
    for (const [key, policy] of Object.entries(applying)) {
      const clash = policyNames.get(policy.name);
      if (clash) throw invalid(`tenant ${tenant.slug}: policies ${clash} and ${key} are both named ${policy.name}`);
      policyNames.set(policy.name, key);
      for (const limit of policy.limits) {
        const qualified = policyLimitName(policy.name, limit.name);
        const other = names.get(qualified);
        if (other) throw invalid(`tenant ${tenant.slug}: limit ${qualified} of policy ${key} has the name of ${other}`);
        names.set(qualified, `policy ${key}`);
      }
    }
  }
}

/** The policies that apply to a tenant, by route: its plan's, with its own replacing those of the same route. */
export function effectivePolicies(policies: CompiledPolicies, tenantSlug: string, planSlug: string): Record<string, CompiledPolicy> {
  return { ...own(policies.plans, planSlug), ...own(policies.tenants, tenantSlug) };
}

function checkPolicy(policy: CompiledPolicy, path: string, invalid: (message: string) => Error): void {
  policy.limits.forEach((limit, i) => {
    // One quota across regions shares out a window's count: the engine does it for fixed windows (calendar ones too).
    if (policy.regionScope === 'global' && limit.algorithm !== 'fixed_window') {
      throw invalid(`${path}.limits.${i}: a policy across regions (regionScope global) can only have fixed-window limits, not ${limit.algorithm}`);
    }
    let capacity: number;
    try {
      capacity = resolveRule(toLimitRule({ ...limit, name: policyLimitName(policy.name, limit.name) }), i).capacity;
    } catch (err) {
      throw invalid(`${path}.limits.${i}: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (policy.cost > capacity) throw invalid(`${path}: a request costs ${policy.cost}, more than limit ${limit.name} can ever hold (${capacity})`);
  });
}
