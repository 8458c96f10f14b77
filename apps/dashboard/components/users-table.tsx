import type { Account } from '@/lib/api-answers';
import { formatRelativeTime, formatTimestamp } from '@/lib/format';
import { DataTable } from './data-table';
import { UserRow } from './user-row';

/** Accounts by e-mail; times are worked out here, on the server, so the browser renders the same text. */
export function UsersTable({ accounts, selfId }: { accounts: Account[]; selfId: string }) {
  const now = Date.now();
  return (
    <DataTable testId="users-table" columns={['E-mail', 'Name', 'Role', 'Tenant', 'Created']} actions>
      {accounts.map((account) => (
        <UserRow
          key={account.id}
          account={account}
          self={account.id === selfId}
          created={{ text: formatRelativeTime(account.createdAt, now), title: formatTimestamp(account.createdAt) }}
        />
      ))}
    </DataTable>
  );
}
