import type { PolicyMethod, PolicyView } from '@tollgate/domain';
import { limitOrder, toLimitView } from '../limits/limit-views';

export type { PolicyView };

const owner = { select: { id: true, slug: true, name: true } };

/** What to load with a policy to show it. */
export const policyInclude = {
  plan: owner,
  tenant: owner,
  limits: { orderBy: limitOrder },
};

export function toPolicyView(p: Omit<PolicyView, 'method'> & { method: string }): PolicyView {
  return {
    id: p.id,
    plan: p.plan,
    tenant: p.tenant,
    name: p.name,
    // Validated on the way in (POLICY_METHODS); the column is text because `*` is not an enum label.
    method: p.method as PolicyMethod,
    pattern: p.pattern,
    cost: p.cost,
    scope: p.scope,
    mode: p.mode,
    failureMode: p.failureMode,
    replicaAck: p.replicaAck,
    regionScope: p.regionScope,
    limits: p.limits.map(toLimitView),
  };
}
