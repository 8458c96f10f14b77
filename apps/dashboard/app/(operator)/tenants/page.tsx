import type { Metadata } from 'next';
import { ErrorPanel } from '@/components/error-panel';
import { PageHeading } from '@/components/page-heading';
import { CursorPagination } from '@/components/pagination';
import { TenantsTable } from '@/components/tenants-table';
import { listTenants } from '@/lib/api';
import { loadWithSession } from '@/lib/session';

export const metadata: Metadata = { title: 'Tenants' };

const PAGE_SIZE = 50;

interface TenantsPageProps {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

export default async function TenantsPage({ searchParams }: TenantsPageProps) {
  const after = (await searchParams).after;
  const trail = (Array.isArray(after) ? after : after ? [after] : []).filter(Boolean);
  const page = await loadWithSession((token) => listTenants(token, trail.at(-1), PAGE_SIZE));

  return (
    <>
      <PageHeading title="Tenants" description="Every tenant, the plan it is on and whether its traffic is admitted." />
      {!page.ok ? (
        <ErrorPanel problem={page.problem} />
      ) : page.data.items.length === 0 && trail.length === 0 ? (
        <p className="card panel muted">No tenants yet.</p>
      ) : (
        <>
          <TenantsTable tenants={page.data.items} />
          <CursorPagination
            basePath="/tenants"
            trail={trail}
            nextCursor={page.data.nextCursor}
            shown={page.data.items.length}
          />
        </>
      )}
    </>
  );
}
