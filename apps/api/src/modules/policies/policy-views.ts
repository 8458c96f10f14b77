import type { FailureMode, PolicyMethod, PolicyMode, SubjectScope } from '@tollgate/domain';
import { limitOrder, toLimitView, type LimitView } from '../limits/limit-views';

interface OwnerRef {
  id: string;
  slug: string;
  name: string;
}

/** An endpoint policy as the admin API shows it: exactly one of `plan` and `tenant` is set. */
export interface PolicyView {
  id: string;
  plan: OwnerRef | null;
  tenant: OwnerRef | null;
  name: string;
  method: PolicyMethod;
  pattern: string;
  cost: number;
  scope: SubjectScope;
  mode: PolicyMode;
  failureMode: FailureMode;
  limits: LimitView[];
}

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
    limits: p.limits.map(toLimitView),
  };
}
