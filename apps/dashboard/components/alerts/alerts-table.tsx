import type { Alert } from '@/lib/api-answers';
import { describeAlert, describeNotified, KIND_LABELS, NOT_SENT_WHY, STATE_LABELS } from '@/lib/alerts';
import { formatTimestamp } from '@/lib/format';
import { DataTable } from '../data-table';
import { AcknowledgeButton } from './acknowledge-button';

interface AlertsTableProps {
  alerts: readonly Alert[];
  /** The operator's table: each alert's rule and tenant by name. A tenant's own has neither column. */
  names?: { rules: ReadonlyMap<string, string>; tenants: ReadonlyMap<string, string> };
  /** The operator's table: firing alerts nobody has acknowledged have an Acknowledge. */
  canAcknowledge?: boolean;
}

/** The alert history, newest first: what fired, about whom, what was measured, and when it started and ended. */
export function AlertsTable({ alerts, names, canAcknowledge = false }: AlertsTableProps) {
  return (
    <DataTable testId="alerts-table" columns={['State', 'Kind', names !== undefined && 'Rule', names !== undefined && 'Tenant', 'What', 'Notified', 'Started', 'Resolved']}>
      {alerts.map((alert) => (
        <tr key={alert.id} data-testid={`alert-row-${alert.id}`}>
          <td>
            <span className={`badge badge-alert-${alert.state}`} data-testid={`alert-state-${alert.id}`}>
              {STATE_LABELS[alert.state]}
            </span>
            {alert.acknowledgedAt ? (
              <span className="alert-acked muted" data-testid={`alert-acked-${alert.id}`} title={`Acknowledged ${formatTimestamp(alert.acknowledgedAt)}`}>
                seen by {(alert.acknowledgedBy ?? 'someone').replace(/^user:/, '')}
              </span>
            ) : (
              canAcknowledge && alert.state === 'firing' && <AcknowledgeButton alertId={alert.id} />
            )}
          </td>
          <td className="alert-nowrap">{KIND_LABELS[alert.kind]}</td>
          {names && <td className="alert-nowrap">{alert.ruleId ? (names.rules.get(alert.ruleId) ?? '—') : <span className="muted">deleted rule</span>}</td>}
          {names && <td>{alert.tenantId ? (names.tenants.get(alert.tenantId) ?? '—') : <span className="muted">platform</span>}</td>}
          <td className="alert-what">{describeAlert(alert)}</td>
          <td className="muted alert-nowrap" data-testid={`alert-notified-${alert.id}`} title={alert.notifications === 0 && alert.state !== 'pending' ? NOT_SENT_WHY : undefined}>
            {describeNotified(alert)}
          </td>
          <td className="muted">{formatTimestamp(alert.startedAt)}</td>
          <td className="muted">{alert.resolvedAt ? formatTimestamp(alert.resolvedAt) : '—'}</td>
        </tr>
      ))}
    </DataTable>
  );
}
