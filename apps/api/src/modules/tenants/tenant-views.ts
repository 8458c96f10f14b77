import type { OverrideView, TenantView } from '@tollgate/domain';
import { toLimitBody } from '../limits/limit-views';

export type { OverrideView, TenantView };

/** What to load with a tenant to show it. */
export const tenantInclude = {
  plan: { select: { id: true, slug: true, name: true } },
  overrides: { orderBy: { name: 'asc' as const } },
};


export function toTenantView(t: TenantView): TenantView {
  return { id: t.id, slug: t.slug, name: t.name, status: t.status, timeZone: t.timeZone, plan: t.plan, overrides: t.overrides.map(toLimitBody) };
}
