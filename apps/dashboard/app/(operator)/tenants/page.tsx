import type { Metadata } from 'next';
import { ErrorPanel } from '@/components/error-panel';
import { MutationStatusProvider } from '@/components/mutation-status';
import { NewTenantForm } from '@/components/new-tenant-form';
import { PageHeading } from '@/components/page-heading';
import { CursorPagination } from '@/components/pagination';
import { TenantsTable } from '@/components/tenants-table';
import { listPlans, listTenants } from '@/lib/api';
import { cursorTrail, type SearchParams } from '@/lib/pagination';
import { loadWithSession } from '@/lib/session';

export const metadata: Metadata = { title: 'Tenants' };

const PAGE_SIZE = 50;

interface TenantsPageProps {
  searchParams: Promise<SearchParams>;
}

export default async function TenantsPage({ searchParams }: TenantsPageProps) {
  const trail = cursorTrail(await searchParams);
  const loaded = await loadWithSession(async (token) => {
    const [page, plans] = await Promise.all([listTenants(token, trail.at(-1), PAGE_SIZE), listPlans(token)]);
    // Only what the plan selects need travels to the browser.
    return { page, plans: plans.map(({ id, slug, name }) => ({ id, slug, name })) };
  });

  return (
    <>
      <PageHeading title="Tenants" description="Every tenant, the plan it is on and whether its traffic is admitted." />
      {!loaded.ok ? (
        <ErrorPanel problem={loaded.problem} />
      ) : (
        <MutationStatusProvider>
          <div className="plan-grid">
            <NewTenantForm plans={loaded.data.plans} />
            {loaded.data.page.items.length === 0 && trail.length === 0 ? (
              <p className="card panel muted">No tenants yet.</p>
            ) : (
              <div>
                <TenantsTable tenants={loaded.data.page.items} plans={loaded.data.plans} />
                <CursorPagination
                  basePath="/tenants"
                  trail={trail}
                  nextCursor={loaded.data.page.nextCursor}
                  shown={loaded.data.page.items.length}
                />
              </div>
            )}
          </div>
        </MutationStatusProvider>
      )}
    </>
  );
}
