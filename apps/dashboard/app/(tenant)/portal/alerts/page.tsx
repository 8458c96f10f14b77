import type { Metadata } from 'next';
import Link from 'next/link';
import { AlertHistory } from '@/components/alerts/alert-history';
import { ListPage } from '@/components/list-page';
import { RuleVersionProvider } from '@/components/rule-version';
import { AutoRefresh } from '@/components/usage/auto-refresh';
import { ALERTS_PATHS, parseAlertFilter } from '@/lib/alerts';
import { listAlerts } from '@/lib/api';
import { listQuery, type SearchPageProps } from '@/lib/pagination';
import { loadWithSession } from '@/lib/session';

export const metadata: Metadata = { title: 'Alerts' };

const PAGE_SIZE = 50;
const PATH = ALERTS_PATHS.tenant;

/** A tenant's own quota alerts: its limits that reached a threshold, and when their window ended. */
export default async function PortalAlertsPage({ searchParams }: SearchPageProps) {
  const { params, filter, trail } = await listQuery(searchParams, parseAlertFilter);
  const loaded = await loadWithSession((token) => listAlerts(token, 'tenant', filter, trail.at(-1), PAGE_SIZE));
  return (
    // No rule set badge to keep up to date here: the list's provider gets one of its own.
    <RuleVersionProvider current={null}>
      <ListPage
        title="Alerts"
        description="When your limits reached the thresholds your operator watches for. To be told as it happens, add a webhook endpoint."
        heading={<AutoRefresh everyMs={15_000} />}
        loaded={loaded}
      >
        {(page) => (
          <AlertHistory
            path={PATH}
            params={params}
            page={page}
            trail={trail}
            empty={
              <>
                No alerts yet: none of your limits has reached a threshold your operator watches for. Add an endpoint on the{' '}
                <Link href="/portal/webhooks">Webhooks</Link> page to be told when one does.
              </>
            }
          />
        )}
      </ListPage>
    </RuleVersionProvider>
  );
}
