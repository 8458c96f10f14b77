import type { ApiKey } from '@/lib/api-answers';
import { formatRelativeTime, formatTimestamp } from '@/lib/format';
import { keyScope, keyStatus } from '@/lib/keys';
import { DataTable } from './data-table';
import { KeyCells, type KeyRowView } from './key-cells';
import { KeyRow } from './key-row';

const when = (iso: string | null, none: string) =>
  iso ? { text: formatRelativeTime(iso), title: formatTimestamp(iso) } : { text: none, title: undefined };

interface KeysTableProps {
  keys: ApiKey[];
  /**
   * The operator's table: each key's kind and scope (a tenant key's tenant by slug), with Rotate and Revoke.
   * Without it, a tenant's own keys, read only.
   */
  tenantSlugs?: ReadonlyMap<string, string>;
}

/** Keys newest first, as the API lists them; times and status are worked out here, on the server. */
export function KeysTable({ keys, tenantSlugs }: KeysTableProps) {
  const now = Date.now();
  const manage = tenantSlugs !== undefined;
  const rows: KeyRowView[] = keys.map((key) => ({
    id: key.id,
    kind: key.kind,
    name: key.name,
    prefix: key.prefix,
    ...(tenantSlugs ? { scope: keyScope(key, tenantSlugs) } : {}),
    created: when(key.createdAt, '—'),
    lastUsed: when(key.lastUsedAt, 'never'),
    calls: key.usage.last24h,
    expires: key.expiresAt ? { text: formatTimestamp(key.expiresAt), title: formatRelativeTime(key.expiresAt, now) } : { text: 'never', title: undefined },
    status: keyStatus(key, now),
  }));

  return (
    <DataTable
      testId="keys-table"
      columns={['Name', manage && 'Kind', 'Key', manage && 'Scope', 'Created', 'Last used', 'Calls (24 h)', 'Expires', 'Status']}
      actions={manage}
    >
      {rows.map((row) =>
        manage ? (
          <KeyRow key={row.id} row={row} />
        ) : (
          <tr key={row.id} data-testid={`key-row-${row.id}`}>
            <KeyCells row={row} />
          </tr>
        ),
      )}
    </DataTable>
  );
}
