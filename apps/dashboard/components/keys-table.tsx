import type { ApiKey } from '@/lib/api-types';
import { formatRelativeTime, formatTimestamp } from '@/lib/format';
import { keyStatus } from '@/lib/keys';
import { KeyRow, type KeyRowView } from './key-row';

const when = (iso: string | null, none: string) =>
  iso ? { text: formatRelativeTime(iso), title: formatTimestamp(iso) } : { text: none, title: undefined };

/** Every key of the filter, newest first as the API lists them; times and status are worked out here, on the server. */
export function KeysTable({ keys, tenantSlugs }: { keys: ApiKey[]; tenantSlugs: Record<string, string> }) {
  const now = Date.now();
  const rows: KeyRowView[] = keys.map((key) => ({
    id: key.id,
    kind: key.kind,
    name: key.name,
    prefix: key.prefix,
    scope:
      key.kind === 'operator'
        ? { label: 'admin API' }
        : key.kind === 'tenant'
          ? { slugs: [key.tenantId ? (tenantSlugs[key.tenantId] ?? key.tenantId) : '—'] }
          : key.tenants.length === 0
            ? { label: 'all tenants' }
            : { slugs: key.tenants },
    created: when(key.createdAt, '—'),
    lastUsed: when(key.lastUsedAt, 'never'),
    expires: key.expiresAt ? { text: formatTimestamp(key.expiresAt), title: formatRelativeTime(key.expiresAt, now) } : { text: 'never', title: undefined },
    status: keyStatus(key, now),
  }));

  return (
    <div className="card table-card">
      <table className="table" data-testid="keys-table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Kind</th>
            <th scope="col">Key</th>
            <th scope="col">Scope</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Expires</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <KeyRow key={row.id} row={row} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
