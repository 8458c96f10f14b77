import type { Metadata } from 'next';
import Link from 'next/link';
import { AlertsTable } from '@/components/alerts/alerts-table';
import '@/components/alerts/alerts.css';
import { FilterForm } from '@/components/filter-form';
import { EmptyState, ListPage, PagedList } from '@/components/list-page';
import { RuleVersionProvider } from '@/components/rule-version';
import { ALERTS_PATHS, parseAlertFilter, SINCE_OPTIONS, STATE_LABELS } from '@/lib/alerts';
import { listAlerts } from '@/lib/api';
import { ALERT_STATES } from '@/lib/api-answers';
import { cursorTrail, filterQuery, type SearchParams, withQuery } from '@/lib/pagination';
import { loadWithSession } from '@/lib/session';

export const metadata: Metadata = { title: 'Alerts' };

const PAGE_SIZE = 50;
const PATH = ALERTS_PATHS.tenant;

/** A tenant's own quota alerts: its limits that reached a threshold, and when their window ended. */
export default async function PortalAlertsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const filter = parseAlertFilter(params);
  const trail = cursorTrail(params);
  const loaded = await loadWithSession((token) => listAlerts(token, 'tenant', filter, trail.at(-1), PAGE_SIZE));
  const filters = filterQuery(params);
  return (
    // No rule set badge to keep up to date here: the list's provider gets one of its own.
    <RuleVersionProvider current={null}>
      <ListPage
        title="Alerts"
        description="When your limits reached the thresholds your operator watches for. To be told as it happens, add a webhook endpoint."
        loaded={loaded}
      >
        {(page) => (
          <>
            <FilterForm
              path={PATH}
              label="Filter alerts"
              testPrefix="alert"
              params={params}
              filters={[
                { name: 'state', label: 'State', options: ALERT_STATES.map((s) => ({ value: s, label: STATE_LABELS[s] })) },
                { name: 'since', label: 'Started', options: SINCE_OPTIONS.map((o) => ({ value: o.value, label: o.label })) },
              ]}
            />
            <PagedList
              page={page}
              trail={trail}
              basePath={withQuery(PATH, filters)}
              empty={
                <EmptyState testId="alerts-empty">
                  {filters.size > 0 ? (
                    <>
                      No alerts match these filters. <Link href={PATH}>Clear them</Link> to see every alert.
                    </>
                  ) : (
                    <>
                      No alerts yet: none of your limits has reached a threshold your operator watches for. Add an endpoint on the{' '}
                      <Link href="/portal/webhooks">Webhooks</Link> page to be told when one does.
                    </>
                  )}
                </EmptyState>
              }
            >
              <AlertsTable alerts={page.items} />
            </PagedList>
          </>
        )}
      </ListPage>
    </RuleVersionProvider>
  );
}
