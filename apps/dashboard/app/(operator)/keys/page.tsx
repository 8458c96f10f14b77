import type { Metadata } from 'next';
import { FilterForm, namedFilter } from '@/components/filter-form';
import { KeysTable } from '@/components/keys-table';
import { FilteredEmpty, ListPage } from '@/components/list-page';
import { named } from '@/components/named-select';
import { NewKeyForm } from '@/components/new-key-form';
import { listKeys, listAllTenants } from '@/lib/api';
import { KEY_KINDS } from '@/lib/api-answers';
import { KEYS_PATH, KIND_LABELS } from '@/lib/keys';
import { KEY_STATE_LABELS, KEY_STATES, parseKeyFilter } from '@/lib/list-filters';
import { filterQuery, type SearchPageProps } from '@/lib/pagination';
import { loadWithSession } from '@/lib/session';

export const metadata: Metadata = { title: 'Keys' };

export default async function KeysPage({ searchParams }: SearchPageProps) {
  const params = await searchParams;
  const filter = parseKeyFilter(params);
  const loaded = await loadWithSession(async (token) => {
    const [keys, tenants] = await Promise.all([listKeys(token, filter), listAllTenants(token)]);
    // Only what the tenant select and the scope column need travels to the browser.
    return { keys, tenants: tenants.items.map(named) };
  });
  const filtered = filterQuery(params).size > 0;

  return (
    <ListPage
      title="Keys"
      description="The API keys of services, tenants and operators: create one, rotate its secret or revoke it."
      loaded={loaded}
    >
      {({ keys, tenants }) => (
        <>
          <NewKeyForm tenants={tenants} />
          <FilterForm
            path={KEYS_PATH}
            label="Filter keys"
            testPrefix="keys"
            params={params}
            filters={[
              { name: 'kind', label: 'Kind', options: KEY_KINDS.map((kind) => ({ value: kind, label: KIND_LABELS[kind] })) },
              namedFilter('tenantId', 'Tenant', tenants),
              { name: 'state', label: 'State', options: KEY_STATES.map((state) => ({ value: state, label: KEY_STATE_LABELS[state] })) },
            ]}
          />
          {keys.length === 0 ? (
            <FilteredEmpty testId="keys-empty" noun={{ one: 'key', many: 'keys' }} path={KEYS_PATH} filtered={filtered}>
              No keys yet. Create one with “New key” above: a service key for your gateway, a tenant key for a tenant’s own calls.
            </FilteredEmpty>
          ) : (
            <KeysTable keys={keys} tenantSlugs={new Map(tenants.map((tenant) => [tenant.id, tenant.slug]))} />
          )}
        </>
      )}
    </ListPage>
  );
}
