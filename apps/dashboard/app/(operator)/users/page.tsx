import type { Metadata } from 'next';
import { ErrorPanel } from '@/components/error-panel';
import { FilterForm } from '@/components/filter-form';
import { MutationStatus, MutationStatusProvider } from '@/components/mutation-status';
import { NewUserForm } from '@/components/new-user-form';
import { PageHeading } from '@/components/page-heading';
import { CursorPagination } from '@/components/pagination';
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
    <>
      <PageHeading
        title="Users"
        description="Who signs in to the dashboard: operators, who manage everything, and tenant users, who see their own tenant's limits and keys."
      />
      {!loaded.ok ? (
        <ErrorPanel problem={loaded.problem} />
      ) : (
        <MutationStatusProvider>
          <div className="plan-grid">
            <NewUserForm tenants={loaded.data.tenants} />
            <FilterForm
              path={USERS_PATH}
              label="Filter users"
              testPrefix="user"
              params={params}
              filters={[
                { name: 'role', label: 'Role', options: USER_ROLES.map((role) => ({ value: role, label: ROLE_LABELS[role] })) },
                { name: 'tenantId', label: 'Tenant', options: loaded.data.tenants.map((t) => ({ value: t.id, label: `${t.name} (${t.slug})` })) },
              ]}
            />
            <MutationStatus statusKey="users" className="restore-status" />
            {loaded.data.page.items.length === 0 && trail.length === 0 ? (
              <p className="card panel muted" data-testid="users-empty">
                No users{filters.size > 0 ? ' match these filters' : ' yet'}.
              </p>
            ) : (
              <div>
                <UsersTable accounts={loaded.data.page.items} selfId={loaded.data.selfId} />
                <CursorPagination
                  basePath={withQuery(USERS_PATH, filters)}
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
