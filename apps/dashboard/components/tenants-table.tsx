import type { Tenant } from '@/lib/api-answers';
import { DataTable } from './data-table';
import type { NamedOption } from './named-select';
import { TenantRow } from './tenant-row';

export function TenantsTable({ tenants, plans }: { tenants: Tenant[]; plans: NamedOption[] }) {
  return (
    <DataTable testId="tenants-table" columns={['Slug', 'Name', 'Plan', 'Status', 'Time zone']} actions>
      {tenants.map((tenant) => (
        <TenantRow key={tenant.id} tenant={tenant} plans={plans} />
      ))}
    </DataTable>
  );
}
