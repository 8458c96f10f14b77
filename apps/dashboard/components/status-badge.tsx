import type { Tenant } from '@/lib/api-types';

export function StatusBadge({ status }: { status: Tenant['status'] }) {
  return <span className={`badge badge-${status}`}>{status}</span>;
}
