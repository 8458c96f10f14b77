import type { Tenant } from '@/lib/api-answers';
import { LIST_WINDOW, type LimitUseOfRow, type RowTraffic, type UsageOfRow } from '@/lib/list-traffic';
import { DataTable } from './data-table';
import type { NamedOption } from './named-select';
import { TenantRow } from './tenant-row';

/** What the tenants' rows say of their traffic: null where its read failed. */
export interface TenantsTraffic {
  usage: RowTraffic<UsageOfRow> | null;
  limits: RowTraffic<LimitUseOfRow> | null;
}

export function TenantsTable({ tenants, plans, traffic }: { tenants: Tenant[]; plans: NamedOption[]; traffic: TenantsTraffic }) {
  return (
    <DataTable
      testId="tenants-table"
      columns={['Slug', 'Name', 'Plan', 'Status', { label: `Decisions, ${LIST_WINDOW.label}`, numeric: true }, { label: `429 rate, ${LIST_WINDOW.label}`, numeric: true }, 'Limit use now', 'Time zone']}
      actions
    >
      {tenants.map((tenant) => (
        <TenantRow
          key={tenant.id}
          tenant={tenant}
          plans={plans}
          usage={traffic.usage === null ? null : (traffic.usage.rows.get(tenant.id) ?? { id: tenant.id, decisions: 0, denied: 0, denyRate: null, shadowDenied: 0 })}
          limitUse={traffic.limits === null ? null : { entry: traffic.limits.rows.get(tenant.id), live: traffic.limits.live }}
        />
      ))}
    </DataTable>
  );
}
