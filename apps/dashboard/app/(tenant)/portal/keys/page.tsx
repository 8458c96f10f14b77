import type { Metadata } from 'next';
import { ErrorPanel } from '@/components/error-panel';
import { KeysTable } from '@/components/keys-table';
import { EmptyState } from '@/components/list-page';
import { PageHeading } from '@/components/page-heading';
import { listOwnKeys } from '@/lib/api';
import { loadWithSession } from '@/lib/session';

export const metadata: Metadata = { title: 'Keys' };

/** A tenant's own API keys, read only: the operator creates, rotates and revokes them. */
export default async function PortalKeysPage() {
  const keys = await loadWithSession(listOwnKeys);
  return (
    <>
      <PageHeading
        title="API keys"
        description="The keys your clients send with their requests. Only their first characters are shown; ask your operator for a new key, a rotation or a revocation."
      />
      {!keys.ok ? (
        <ErrorPanel problem={keys.problem} />
      ) : keys.data.length === 0 ? (
        <EmptyState testId="keys-empty">No keys yet. Ask your operator for one: your clients send it with every request.</EmptyState>
      ) : (
        <KeysTable keys={keys.data} />
      )}
    </>
  );
}
