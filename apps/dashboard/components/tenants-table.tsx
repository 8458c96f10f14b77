import type { Tenant } from '@/lib/api-types';
import { StatusBadge } from './status-badge';

export function TenantsTable({ tenants }: { tenants: Tenant[] }) {
  return (
    <div className="card table-card">
      <table className="table" data-testid="tenants-table">
        <thead>
          <tr>
            <th scope="col">Slug</th>
            <th scope="col">Name</th>
            <th scope="col">Plan</th>
            <th scope="col">Status</th>
            <th scope="col">Time zone</th>
          </tr>
        </thead>
        <tbody>
          {tenants.map((tenant) => (
            <tr key={tenant.id} data-testid={`tenant-row-${tenant.slug}`}>
              <td>
                <span className="chip">{tenant.slug}</span>
              </td>
              <td>{tenant.name}</td>
              <td>
                {tenant.plan.name} <span className="muted mono">({tenant.plan.slug})</span>
              </td>
              <td>
                <StatusBadge status={tenant.status} />
              </td>
              <td className="muted">{tenant.timeZone}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
