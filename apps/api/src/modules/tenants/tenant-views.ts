import type { OverrideView, TenantView } from '@tollgate/domain';
import { toLimitBody } from '../limits/limit-views';

export type { OverrideView, TenantView };

/** What to load with a tenant to show it. */
export const tenantInclude = {
  plan: { select: { id: true, slug: true, name: true } },
  overrides: { orderBy: { name: 'asc' as const } },
};

/** A tenant row as loaded with `tenantInclude`: its caps are columns of their own. */
type TenantRow = Omit<TenantView, 'caps'> & { webhookEndpointCap: number | null; alertRuleCap: number | null };

export function toTenantView(t: TenantRow): TenantView {
  return {
    id: t.id,
    slug: t.slug,
    name: t.name,
    status: t.status,
    timeZone: t.timeZone,
    plan: t.plan,
    overrides: t.overrides.map(toLimitBody),
    caps: { webhookEndpoints: t.webhookEndpointCap, alertRules: t.alertRuleCap },
  };
}
