import type { Alert } from '@/lib/api-answers';
import { describeAlert, KIND_LABELS, STATE_LABELS } from '@/lib/alerts';
import { formatTimestamp } from '@/lib/format';
import { DataTable } from '../data-table';

interface AlertsTableProps {
  alerts: readonly Alert[];
  /** The operator's table: each alert's rule and tenant by name. A tenant's own has neither column. */
  names?: { rules: ReadonlyMap<string, string>; tenants: ReadonlyMap<string, string> };
}

/** The alert history, newest first: what fired, about whom, what was measured, and when it started and ended. */
export function AlertsTable({ alerts, names }: AlertsTableProps) {
  return (
    <DataTable testId="alerts-table" columns={['State', 'Kind', names !== undefined && 'Rule', names !== undefined && 'Tenant', 'What', 'Started', 'Resolved']}>
      {alerts.map((alert) => (
        <tr key={alert.id} data-testid={`alert-row-${alert.id}`}>
          <td>
            <span className={`badge badge-alert-${alert.state}`} data-testid={`alert-state-${alert.id}`}>
              {STATE_LABELS[alert.state]}
            </span>
          </td>
          <td className="alert-nowrap">{KIND_LABELS[alert.kind]}</td>
          {names && <td className="alert-nowrap">{alert.ruleId ? (names.rules.get(alert.ruleId) ?? '—') : <span className="muted">deleted rule</span>}</td>}
          {names && <td>{alert.tenantId ? (names.tenants.get(alert.tenantId) ?? '—') : <span className="muted">platform</span>}</td>}
          <td className="alert-what">{describeAlert(alert)}</td>
          <td className="muted">{formatTimestamp(alert.startedAt)}</td>
          <td className="muted">{alert.resolvedAt ? formatTimestamp(alert.resolvedAt) : '—'}</td>
        </tr>
      ))}
    </DataTable>
  );
}
