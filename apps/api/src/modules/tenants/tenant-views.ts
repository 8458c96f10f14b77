export interface TenantView {
  id: string;
  slug: string;
  name: string;
  status: 'active' | 'suspended';
  timeZone: string;
  plan: { id: string; slug: string; name: string };
}

/** What to load with a tenant to show it. */
export const tenantInclude = { plan: { select: { id: true, slug: true, name: true } } };

export function toTenantView(t: TenantView): TenantView {
  return { id: t.id, slug: t.slug, name: t.name, status: t.status, timeZone: t.timeZone, plan: t.plan };
}
