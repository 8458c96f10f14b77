import type { Metadata } from 'next';
import { ErrorPanel } from '@/components/error-panel';
import { MutationStatus, MutationStatusProvider } from '@/components/mutation-status';
import { NewPolicyForm } from '@/components/new-policy-form';
import { PageHeading } from '@/components/page-heading';
import { CursorPagination } from '@/components/pagination';
import { PolicyCard } from '@/components/policy-card';
import { PolicyFilters } from '@/components/policy-filters';
import { listPlans, listPolicies, listAllTenants } from '@/lib/api';
import { parsePolicyFilter } from '@/lib/policies';
import { cursorTrail, filterQuery, type SearchParams, withQuery } from '@/lib/pagination';
import { loadWithSession } from '@/lib/session';

export const metadata: Metadata = { title: 'Policies' };

const PAGE_SIZE = 20;

interface PoliciesPageProps {
  searchParams: Promise<SearchParams>;
}

export default async function PoliciesPage({ searchParams }: PoliciesPageProps) {
  const params = await searchParams;
  const filter = parsePolicyFilter(params);
  const trail = cursorTrail(params);
  const loaded = await loadWithSession(async (token) => {
    const [page, plans, tenants] = await Promise.all([
      listPolicies(token, filter, trail.at(-1), PAGE_SIZE),
      listPlans(token),
      listAllTenants(token),
    ]);
    const option = ({ id, slug, name }: { id: string; slug: string; name: string }) => ({ id, slug, name });
    return { page, plans: plans.map(option), tenants: tenants.items.map(option) };
  });
  const filters = filterQuery(params);

  return (
    <>
      <PageHeading
        title="Policies"
        description="Limits per method and route, for every tenant on a plan or for one tenant. Every change publishes a new rule set."
      />
      {!loaded.ok ? (
        <ErrorPanel problem={loaded.problem} />
      ) : (
        <MutationStatusProvider>
          <div className="plan-grid">
            <NewPolicyForm plans={loaded.data.plans} tenants={loaded.data.tenants} />
            <PolicyFilters plans={loaded.data.plans} tenants={loaded.data.tenants} params={params} />
            <MutationStatus statusKey="policies" className="restore-status" />
            {loaded.data.page.items.length === 0 && trail.length === 0 ? (
              <p className="card panel muted" data-testid="policies-empty">
                No policies{filters.size > 0 ? ' match these filters' : ' yet'}.
              </p>
            ) : (
              <>
                {loaded.data.page.items.map((policy) => (
                  <PolicyCard key={policy.id} policy={policy} />
                ))}
                <CursorPagination
                  basePath={withQuery('/policies', filters)}
                  trail={trail}
                  nextCursor={loaded.data.page.nextCursor}
                  shown={loaded.data.page.items.length}
                />
              </>
            )}
          </div>
        </MutationStatusProvider>
      )}
    </>
  );
}
