/** A plan limit as the admin API shows it. */
export interface LimitView {
  id: string;
  name: string;
  windowS: number;
  limit: number;
  algorithm: string;
  burst: number | null;
}

export interface PlanView {
  id: string;
  slug: string;
  name: string;
  tenantCount: number;
  limits: LimitView[];
}

/** What to load with a plan to show it. */
export const planInclude = {
  limits: { orderBy: [{ windowS: 'asc' as const }, { name: 'asc' as const }] },
  _count: { select: { tenants: true } },
};

export function toLimitView(l: LimitView): LimitView {
  return { id: l.id, name: l.name, windowS: l.windowS, limit: l.limit, algorithm: l.algorithm, burst: l.burst };
}

export function toPlanView(p: { id: string; slug: string; name: string; limits: LimitView[]; _count: { tenants: number } }): PlanView {
  return { id: p.id, slug: p.slug, name: p.name, tenantCount: p._count.tenants, limits: p.limits.map(toLimitView) };
}
