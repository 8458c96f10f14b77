import type { Metadata } from 'next';
import Link from 'next/link';
import { FilterForm, namedFilter } from '@/components/filter-form';
import { FilteredList, ListPage } from '@/components/list-page';
import { named } from '@/components/named-select';
import { NewTenantForm } from '@/components/new-tenant-form';
import { TenantsTable } from '@/components/tenants-table';
import { getLimitsUsed, getUsageSummary, listPlans, listTenants } from '@/lib/api';
import { TENANT_STATUSES } from '@/lib/api-answers';
import { parseTenantFilter } from '@/lib/list-filters';
import { byId, LIST_WINDOW, listWindow } from '@/lib/list-traffic';
import { listQuery, type SearchPageProps } from '@/lib/pagination';
import { loadWithSession } from '@/lib/session';

export const metadata: Metadata = { title: 'Tenants' };

const PAGE_SIZE = 50;

export default async function TenantsPage({ searchParams }: SearchPageProps) {
  const { params, filter, trail } = await listQuery(searchParams, parseTenantFilter);
  const loaded = await loadWithSession(async (token) => {
    const [page, plans] = await Promise.all([listTenants(token, trail.at(-1), PAGE_SIZE, filter), listPlans(token)]);
    // The page's rows' traffic, one request each; a failed one leaves its columns at "—", not the list unshown.
    const ids = page.items.map((t) => t.id);
    const [usage, limits] =
      ids.length === 0
        ? [null, null]
        : await Promise.all([
            getUsageSummary(token, 'tenants', ids, listWindow()).then((s) => ({ rows: byId(s.items, (e) => e.id), live: true }), () => null),
            getLimitsUsed(token, ids).then((s) => ({ rows: byId(s.items, (e) => e.tenantId), live: s.live }), () => null),
          ]);
    // Only what the plan selects need travels to the browser.
    return { page, plans: plans.map(named), traffic: { usage, limits } };
  });

  return (
    <ListPage
      title="Tenants"
      description={`Every tenant, the plan it is on, whether its traffic is admitted, its decisions and 429s over the last ${LIST_WINDOW.label} and the most used of its limits now.`}
      loaded={loaded}
    >
      {({ page, plans, traffic }) => (
        <>
          <NewTenantForm plans={plans} />
          <FilterForm
            path="/tenants"
            label="Filter tenants"
            testPrefix="tenant"
            params={params}
            filters={[
              { name: 'q', label: 'Search', search: { placeholder: 'slug or name' } },
              namedFilter('plan', 'Plan', plans),
              { name: 'status', label: 'Status', options: TENANT_STATUSES.map((s) => ({ value: s, label: s })) },
            ]}
          />
          <FilteredList
            page={page}
            trail={trail}
            path="/tenants"
            params={params}
            testId="tenants-empty"
            noun={{ one: 'tenant', many: 'tenants' }}
            nothingYet={
              plans.length === 0 ? (
                <>
                  No tenants yet. A tenant is on a plan: <Link href="/plans">create a plan</Link> first, then a tenant here.
                </>
              ) : (
                'No tenants yet. Create the first with “New tenant” above.'
              )
            }
          >
            <TenantsTable tenants={page.items} plans={plans} traffic={traffic} />
          </FilteredList>
        </>
      )}
    </ListPage>
  );
}
