import type { Limit } from '@tollgate/domain';
import { toLimitBody } from '../limits/limit-views';

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

/** An override is a whole limit named by its name (no id of its own in the API). */
export type OverrideView = Limit;

/** What to load with a tenant to show it. */
export const tenantInclude = {
  plan: { select: { id: true, slug: true, name: true } },
  overrides: { orderBy: { name: 'asc' as const } },
};


export function toTenantView(t: TenantView): TenantView {
  return { id: t.id, slug: t.slug, name: t.name, status: t.status, timeZone: t.timeZone, plan: t.plan, overrides: t.overrides.map(toLimitBody) };
}
