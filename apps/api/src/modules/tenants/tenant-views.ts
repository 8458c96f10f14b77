export interface TenantView {
  id: string;
  slug: string;
  name: string;
  status: 'active' | 'suspended';
  timeZone: string;
  plan: { id: string; slug: string; name: string };
  /** Limits of this tenant that replace (same name) or add to its plan's. */
  overrides: OverrideView[];
}

export interface OverrideView {
  name: string;
  windowS: number;
  limit: number;
  algorithm: string;
  burst: number | null;
}

/** What to load with a tenant to show it. */
export const tenantInclude = {
  plan: { select: { id: true, slug: true, name: true } },
  overrides: { orderBy: { name: 'asc' as const } },
};

export function toOverrideView(o: OverrideView): OverrideView {
  return { name: o.name, windowS: o.windowS, limit: o.limit, algorithm: o.algorithm, burst: o.burst };
}

export function toTenantView(t: TenantView): TenantView {
  return { id: t.id, slug: t.slug, name: t.name, status: t.status, timeZone: t.timeZone, plan: t.plan, overrides: t.overrides.map(toOverrideView) };
}
