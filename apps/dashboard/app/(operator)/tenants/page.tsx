import type { Metadata } from 'next';
import { EmptyState, ListPage, PagedList } from '@/components/list-page';
import { NewTenantForm } from '@/components/new-tenant-form';
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
    <ListPage title="Tenants" description="Every tenant, the plan it is on and whether its traffic is admitted." loaded={loaded}>
      {({ page, plans }) => (
        <>
          <NewTenantForm plans={plans} />
          <PagedList page={page} trail={trail} basePath="/tenants" empty={<EmptyState>No tenants yet.</EmptyState>}>
            <TenantsTable tenants={page.items} plans={plans} />
          </PagedList>
        </>
      )}
    </ListPage>
  );
}
