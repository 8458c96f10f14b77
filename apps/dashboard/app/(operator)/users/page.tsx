import type { Metadata } from 'next';
import Link from 'next/link';
import { FilterForm } from '@/components/filter-form';
import { EmptyState, ListPage, PagedList } from '@/components/list-page';
import { MutationStatus } from '@/components/mutation-status';
import { NewUserForm } from '@/components/new-user-form';
import { UsersTable } from '@/components/users-table';
import { getMe, listAccounts, listAllTenants } from '@/lib/api';
import { USER_ROLES } from '@/lib/api-answers';
import { cursorTrail, filterQuery, type SearchParams, withQuery } from '@/lib/pagination';
import { loadWithSession } from '@/lib/session';
import { parseAccountFilter, ROLE_LABELS, USERS_PATH } from '@/lib/users';

export const metadata: Metadata = { title: 'Users' };

const PAGE_SIZE = 50;

interface UsersPageProps {
  searchParams: Promise<SearchParams>;
}

export default async function UsersPage({ searchParams }: UsersPageProps) {
  const params = await searchParams;
  const filter = parseAccountFilter(params);
  const trail = cursorTrail(params);
  const loaded = await loadWithSession(async (token) => {
    const [page, tenants, me] = await Promise.all([
      listAccounts(token, filter, trail.at(-1), PAGE_SIZE),
      listAllTenants(token),
      getMe(token),
    ]);
    // Only what the tenant selects need travels to the browser.
    return { page, tenants: tenants.items.map(({ id, slug, name }) => ({ id, slug, name })), selfId: me.id };
  });
  const filters = filterQuery(params);

  return (
    <ListPage
      title="Users"
      description="Who signs in to the dashboard: operators, who manage everything, and tenant users, who see their own tenant's limits and keys."
      loaded={loaded}
    >
      {({ page, tenants, selfId }) => (
        <>
          <NewUserForm tenants={tenants} />
          <FilterForm
            path={USERS_PATH}
            label="Filter users"
            testPrefix="user"
            params={params}
            filters={[
              { name: 'q', label: 'Search', search: { placeholder: 'e-mail or name' } },
              { name: 'role', label: 'Role', options: USER_ROLES.map((role) => ({ value: role, label: ROLE_LABELS[role] })) },
              { name: 'tenantId', label: 'Tenant', options: tenants.map((t) => ({ value: t.id, label: `${t.name} (${t.slug})` })) },
            ]}
          />
          <MutationStatus statusKey="users" className="restore-status" />
          <PagedList
            page={page}
            trail={trail}
            basePath={withQuery(USERS_PATH, filters)}
            empty={
              <EmptyState testId="users-empty">
                {filters.size > 0 ? (
                  <>
                    No users match these filters. <Link href={USERS_PATH}>Clear them</Link> to see every user.
                  </>
                ) : (
                  'No users yet. Add one with “New user” above.'
                )}
              </EmptyState>
            }
          >
            <UsersTable accounts={page.items} selfId={selfId} />
          </PagedList>
        </>
      )}
    </ListPage>
  );
}
