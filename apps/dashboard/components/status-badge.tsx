import type { Tenant } from '@/lib/api-answers';

/** A tenant's status, or `current` for the rule set version every API node enforces. */
export function StatusBadge({ status }: { status: Tenant['status'] | 'current' }) {
  return <span className={`badge badge-${status}`}>{status}</span>;
}
