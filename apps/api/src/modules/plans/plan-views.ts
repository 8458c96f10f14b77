import type { PlanView } from '@tollgate/domain';
import { limitOrder, toLimitView, type LimitView } from '../limits/limit-views';

// The answers' shapes are the domain's (libs/domain/src/answers.ts): a view that drifts from its schema fails the type check.
export type { LimitView, PlanView };

/** What to load with a plan to show it. */
export const planInclude = {
  limits: { orderBy: limitOrder },
  _count: { select: { tenants: true } },
};

export function toPlanView(p: { id: string; slug: string; name: string; limits: LimitView[]; _count: { tenants: number } }): PlanView {
  return { id: p.id, slug: p.slug, name: p.name, tenantCount: p._count.tenants, limits: p.limits.map(toLimitView) };
}
