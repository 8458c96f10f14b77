import Link from 'next/link';
import { PageHeading } from '@/components/page-heading';

/** A tenant id that names no tenant (deleted, mistyped, or not an id): said plainly, with the way back. */
export default function TenantNotFound() {
  return (
    <>
      <PageHeading title="Tenant not found" description="No tenant has this id: it may have been deleted, or the link is wrong." />
      <section className="card panel" data-testid="tenant-not-found">
        <div className="panel-icon panel-icon-muted" aria-hidden="true">
          ?
        </div>
        <h2>There is no such tenant</h2>
        <p>Pick it again from the list of tenants.</p>
        <Link href="/tenants" className="btn" data-testid="tenant-not-found-back">
          ← All tenants
        </Link>
      </section>
    </>
  );
}
