import type { Metadata } from 'next';
import { FilteredList, ListPage } from '@/components/list-page';
import { MutationStatus } from '@/components/mutation-status';
import { named } from '@/components/named-select';
import { NewPolicyForm } from '@/components/new-policy-form';
import { PolicyCard } from '@/components/policy-card';
import { PolicyFilters } from '@/components/policy-filters';
import { getUsageSummary, listPlans, listPolicies, listAllTenants } from '@/lib/api';
import { byId, LIST_WINDOW, listWindow } from '@/lib/list-traffic';
import { parsePolicyFilter } from '@/lib/policies';
import { listQuery, type SearchPageProps } from '@/lib/pagination';
import { loadWithSession } from '@/lib/session';

export const metadata: Metadata = { title: 'Policies' };

const PAGE_SIZE = 20;

export default async function PoliciesPage({ searchParams }: SearchPageProps) {
  const { params, filter, trail } = await listQuery(searchParams, parsePolicyFilter);
  const loaded = await loadWithSession(async (token) => {
    const [page, plans, tenants] = await Promise.all([
      listPolicies(token, filter, trail.at(-1), PAGE_SIZE),
      listPlans(token),
      listAllTenants(token),
    ]);
    // The page's policies' traffic in one request; a failed one leaves the cards without it, not the list unshown.
    const ids = page.items.map((p) => p.id);
    const usage = ids.length === 0 ? null : await getUsageSummary(token, 'policies', ids, listWindow()).then((s) => byId(s.items, (e) => e.id), () => null);
    return { page, plans: plans.map(named), tenants: tenants.items.map(named), usage };
  });

  return (
    <ListPage
      title="Policies"
      description={`Limits per method and route, for every tenant on a plan or for one tenant, with their decisions, 429s and would-denies over the last ${LIST_WINDOW.label}. Every change publishes a new rule set.`}
      loaded={loaded}
    >
      {({ page, plans, tenants, usage }) => (
        <>
          <NewPolicyForm plans={plans} tenants={tenants} />
          <PolicyFilters plans={plans} tenants={tenants} params={params} />
          <MutationStatus statusKey="policies" className="restore-status" />
          <FilteredList
            page={page}
            trail={trail}
            path="/policies"
            params={params}
            testId="policies-empty"
            noun={{ one: 'policy', many: 'policies' }}
            nothingYet="No policies yet: every request counts against its plan’s limits alone. Add one with “New policy” above to limit a route of its own."
            grouped={false}
          >
            {page.items.map((policy) => (
              <PolicyCard key={policy.id} policy={policy} usage={usage === null ? null : (usage.get(policy.id) ?? { id: policy.id, decisions: 0, denied: 0, denyRate: null, shadowDenied: 0 })} />
            ))}
          </FilteredList>
        </>
      )}
    </ListPage>
  );
}
