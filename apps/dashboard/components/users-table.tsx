import type { Account } from '@/lib/api-answers';
import { formatRelativeTime, formatTimestamp } from '@/lib/format';
import { UserRow } from './user-row';

/** Accounts by e-mail; times are worked out here, on the server, so the browser renders the same text. */
export function UsersTable({ accounts, selfId }: { accounts: Account[]; selfId: string }) {
  const now = Date.now();
  return (
    <div className="card table-card">
      <table className="table" data-testid="users-table">
        <thead>
          <tr>
            <th scope="col">E-mail</th>
            <th scope="col">Name</th>
            <th scope="col">Role</th>
            <th scope="col">Tenant</th>
            <th scope="col">Created</th>
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {accounts.map((account) => (
            <UserRow
              key={account.id}
              account={account}
              self={account.id === selfId}
              created={{ text: formatRelativeTime(account.createdAt, now), title: formatTimestamp(account.createdAt) }}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}
