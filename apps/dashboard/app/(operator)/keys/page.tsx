import type { Metadata } from 'next';
import Link from 'next/link';
import { ErrorPanel } from '@/components/error-panel';
import { KeysTable } from '@/components/keys-table';
import { MutationStatusProvider } from '@/components/mutation-status';
import { NewKeyForm } from '@/components/new-key-form';
import { PageHeading } from '@/components/page-heading';
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
    <>
      <PageHeading title="Keys" description="The API keys of services, tenants and operators: create one, rotate its secret or revoke it.">
        <KindFilter current={kind} />
      </PageHeading>
      {!loaded.ok ? (
        <ErrorPanel problem={loaded.problem} />
      ) : (
        <MutationStatusProvider>
          <div className="plan-grid">
            <NewKeyForm tenants={loaded.data.tenants} />
            {loaded.data.keys.length === 0 ? (
              <p className="card panel muted" data-testid="keys-empty">
                {kind ? `No ${KIND_LABELS[kind].toLowerCase()} keys yet.` : 'No keys yet.'}
              </p>
            ) : (
              <KeysTable
                keys={loaded.data.keys}
                tenantSlugs={Object.fromEntries(loaded.data.tenants.map((tenant) => [tenant.id, tenant.slug]))}
              />
            )}
          </div>
        </MutationStatusProvider>
      )}
    </>
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
