import type { Metadata } from 'next';
import { FilterForm, namedFilter } from '@/components/filter-form';
import { FilteredList, ListPage } from '@/components/list-page';
import { MutationStatus } from '@/components/mutation-status';
import { named } from '@/components/named-select';
import { NewUserForm } from '@/components/new-user-form';
import { UsersTable } from '@/components/users-table';
import { getMe, listAccounts, listAllTenants } from '@/lib/api';
import { USER_ROLES } from '@/lib/api-answers';
import { listQuery, type SearchPageProps } from '@/lib/pagination';
import { loadWithSession } from '@/lib/session';
import { parseAccountFilter, ROLE_LABELS, USERS_PATH } from '@/lib/users';

export const metadata: Metadata = { title: 'Users' };

const PAGE_SIZE = 50;

export default async function UsersPage({ searchParams }: SearchPageProps) {
  const { params, filter, trail } = await listQuery(searchParams, parseAccountFilter);
  const loaded = await loadWithSession(async (token) => {
    const [page, tenants, me] = await Promise.all([
      listAccounts(token, filter, trail.at(-1), PAGE_SIZE),
      listAllTenants(token),
      getMe(token),
    ]);
    // Only what the tenant selects need travels to the browser.
    return { page, tenants: tenants.items.map(named), selfId: me.id };
  });

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
              namedFilter('tenantId', 'Tenant', tenants),
            ]}
          />
          <MutationStatus statusKey="users" className="restore-status" />
          <FilteredList
            page={page}
            trail={trail}
            path={USERS_PATH}
            params={params}
            testId="users-empty"
            noun={{ one: 'user', many: 'users' }}
            nothingYet="No users yet. Add one with “New user” above."
          >
            <UsersTable accounts={page.items} selfId={selfId} />
          </FilteredList>
        </>
      )}
    </ListPage>
  );
}
