import type { Metadata } from 'next';
import Link from 'next/link';
import { KeysTable } from '@/components/keys-table';
import { EmptyState, ListPage } from '@/components/list-page';
import { NewKeyForm } from '@/components/new-key-form';
import { listKeys, listAllTenants } from '@/lib/api';
import { KEY_KINDS, type KeyKind } from '@/lib/api-answers';
import { keysHref, KIND_LABELS, parseKindFilter } from '@/lib/keys';
import { loadWithSession } from '@/lib/session';

export const metadata: Metadata = { title: 'Keys' };

interface KeysPageProps {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

export default async function KeysPage({ searchParams }: KeysPageProps) {
  const kind = parseKindFilter(await searchParams);
  const loaded = await loadWithSession(async (token) => {
    const [keys, tenants] = await Promise.all([listKeys(token, { kind }), listAllTenants(token)]);
    // Only what the tenant select and the scope column need travels to the browser.
    return { keys, tenants: tenants.items.map(({ id, slug, name }) => ({ id, slug, name })) };
  });

  return (
    <ListPage
      title="Keys"
      description="The API keys of services, tenants and operators: create one, rotate its secret or revoke it."
      heading={<KindFilter current={kind} />}
      loaded={loaded}
    >
      {({ keys, tenants }) => (
        <>
          <NewKeyForm tenants={tenants} />
          {keys.length === 0 ? (
            <EmptyState testId="keys-empty">{kind ? `No ${KIND_LABELS[kind].toLowerCase()} keys yet.` : 'No keys yet.'}</EmptyState>
          ) : (
            <KeysTable keys={keys} tenantSlugs={new Map(tenants.map((tenant) => [tenant.id, tenant.slug]))} />
          )}
        </>
      )}
    </ListPage>
  );
}

/** Links to every key or to one kind, the current one marked. */
function KindFilter({ current }: { current: KeyKind | undefined }) {
  const filters: { kind: KeyKind | undefined; label: string }[] = [
    { kind: undefined, label: 'All' },
    ...KEY_KINDS.map((kind) => ({ kind, label: KIND_LABELS[kind] })),
  ];
  return (
    <nav className="filter-links" aria-label="Filter keys by kind">
      {filters.map(({ kind, label }) => (
        <Link
          key={label}
          href={keysHref(kind)}
          className={`btn btn-sm ${kind === current ? '' : 'btn-secondary'}`.trim()}
          aria-current={kind === current ? 'page' : undefined}
          data-testid={`keys-filter-${kind ?? 'all'}`}
        >
          {label}
        </Link>
      ))}
    </nav>
  );
}
