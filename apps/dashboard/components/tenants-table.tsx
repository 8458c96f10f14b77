import type { Tenant } from '@/lib/api-answers';
import type { NamedOption } from './named-select';
import { TenantRow } from './tenant-row';

export function TenantsTable({ tenants, plans }: { tenants: Tenant[]; plans: NamedOption[] }) {
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
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {tenants.map((tenant) => (
            <TenantRow key={tenant.id} tenant={tenant} plans={plans} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
