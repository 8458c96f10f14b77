import type { ReactNode } from 'react';
import type { AlertPage } from '@/lib/api-answers';
import { SINCE_OPTIONS, STATE_LABELS } from '@/lib/alerts';
import { ALERT_STATES } from '@/lib/api-answers';
import type { SearchParams } from '@/lib/pagination';
import { type Filter, FilterForm } from '../filter-form';
import { FilteredList } from '../list-page';
import { AlertsTable } from './alerts-table';
import './alerts.css';

interface AlertHistoryProps {
  /** The page it is on: the operator's or the portal's. */
  path: string;
  params: SearchParams;
  page: AlertPage;
  trail: string[];
  /** The operator's filters beyond state and start (rule, tenant, kind), and the names of rules and tenants. */
  filters?: Filter[];
  names?: { rules: ReadonlyMap<string, string>; tenants: ReadonlyMap<string, string> };
  /** What an unfiltered empty history says to do next. */
  empty: ReactNode;
  /** The operator's: firing alerts have an Acknowledge. */
  canAcknowledge?: boolean;
}

/** The alert history, newest first, filtered in its URL by state and when alerts started (and the operator's more). */
export function AlertHistory({ path, params, page, trail, filters = [], names, empty, canAcknowledge }: AlertHistoryProps) {
  return (
    <>
      <FilterForm
        path={path}
        label="Filter alerts"
        testPrefix="alert"
        params={params}
        filters={[
          { name: 'state', label: 'State', options: ALERT_STATES.map((s) => ({ value: s, label: STATE_LABELS[s] })) },
          ...filters,
          { name: 'since', label: 'Started', options: SINCE_OPTIONS.map((o) => ({ value: o.value, label: o.label })) },
        ]}
      />
      <FilteredList page={page} trail={trail} path={path} params={params} testId="alerts-empty" noun={{ one: 'alert', many: 'alerts' }} nothingYet={empty}>
        <AlertsTable alerts={page.items} names={names} canAcknowledge={canAcknowledge} />
      </FilteredList>
    </>
  );
}
