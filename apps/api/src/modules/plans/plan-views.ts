import { limitOrder, toLimitView, type LimitView } from '../limits/limit-views';

export interface PlanView {
  id: string;
  slug: string;
  name: string;
  tenantCount: number;
  limits: LimitView[];
}

/** What to load with a plan to show it. */
export const planInclude = {
  limits: { orderBy: limitOrder },
  _count: { select: { tenants: true } },
};

export function toPlanView(p: { id: string; slug: string; name: string; limits: LimitView[]; _count: { tenants: number } }): PlanView {
  return { id: p.id, slug: p.slug, name: p.name, tenantCount: p._count.tenants, limits: p.limits.map(toLimitView) };
}
