import type { Metadata } from 'next';
import { UsageChart } from '@/components/charts/server-usage-chart';
import { ErrorPanel } from '@/components/error-panel';
import { PageHeading } from '@/components/page-heading';
import { RecentDenials } from '@/components/recent-denials';
import { UsagePanel } from '@/components/usage-panel';
import { RangePicker } from '@/components/usage/range-picker';
import { RouteTable } from '@/components/usage/route-table';
import '@/components/usage/usage.css';
import { getOwnDenials, getOwnLimits, getOwnTenant, getOwnUsage, getOwnUsageRoutes } from '@/lib/api';
import type { SearchParams } from '@/lib/pagination';
import { loadWithSession } from '@/lib/session';
import { settled } from '@/lib/settled';
import { parseRange, rangeQuery, type TimeRange } from '@/lib/overview';
import { rangeLabel } from '@/lib/usage';

export const metadata: Metadata = { title: 'Usage' };

const USAGE_PATH = '/portal/usage';
/** Charts of endpoint policies a page draws at most; the CSV holds them all. */
const MAX_POLICY_CHARTS = 12;

interface PortalUsagePageProps {
  searchParams: Promise<SearchParams>;
}

/** A tenant user's usage over a range: of all its checks, of each endpoint policy, its recent denials, and the CSV. */
export default async function PortalUsagePage({ searchParams }: PortalUsagePageProps) {
  const range = parseRange(await searchParams);
  const { from, to } = range;
  const loaded = await loadWithSession(async (token) => {
    const [tenant, inForce, all, routes, denials] = await Promise.all([
      getOwnTenant(token),
      getOwnLimits(token),
      getOwnUsage(token, { from, to }),
      settled(getOwnUsageRoutes(token, { from, to }, 'decisions')),
      settled(getOwnDenials(token)),
    ]);
    const charted = inForce.policies.slice(0, MAX_POLICY_CHARTS);
    const perPolicy = await Promise.all(charted.map(async (policy) => ({ policy, usage: await settled(getOwnUsage(token, { from, to }, { policy: policy.id })) })));
    return { tenant, all, routes, denials, perPolicy, uncharted: inForce.policies.length - charted.length };
  });

  const heading = (
    <>
      <PageHeading title="Usage" description="Your checks over time, against your limits: what was allowed, what was denied and why.">
        <a className="btn btn-secondary btn-sm" href={exportHref(range)} download data-testid="usage-csv">
          Download CSV
        </a>
      </PageHeading>
      <RangePicker path={USAGE_PATH} range={range} />
    </>
  );
  if (!loaded.ok) {
    return (
      <>
        {heading}
        <ErrorPanel problem={loaded.problem} />
      </>
    );
  }

  const { tenant, all, routes, denials, perPolicy, uncharted } = loaded.data;
  const last = rangeLabel(range);
  return (
    <>
      {heading}
      <div className="plan-grid">
        <UsagePanel title={`All checks, ${last}`} id="own-usage" series={all}>
          <UsageChart series={all} title={`Your checks, ${last}`} testId="own-usage-chart" />
        </UsagePanel>
        {routes.ok ? (
          <RouteTable
            title={`Your top routes, ${last}`}
            routes={routes.data}
            testId="own-routes"
            empty="No checks in this range: the routes your checks name show here, with the limits that denied them."
          />
        ) : (
          <ErrorPanel problem={routes.problem} />
        )}
        {perPolicy.map(({ policy, usage }) =>
          usage.ok ? (
            <UsagePanel key={policy.id} title={`${policy.route}, ${last}`} id={`own-usage-policy-${policy.name}`} series={usage.data}>
              <UsageChart series={usage.data} title={`Checks of ${policy.route}, ${last}`} testId={`own-usage-policy-${policy.name}-chart`} height={200} />
            </UsagePanel>
          ) : (
            <ErrorPanel key={policy.id} problem={usage.problem} />
          ),
        )}
        {uncharted > 0 && (
          <p className="card panel muted">
            {uncharted} more endpoint {uncharted === 1 ? 'policy is' : 'policies are'} in the CSV download.
          </p>
        )}
        {denials.ok ? (
          <RecentDenials
            items={denials.data.items}
            timeZone={tenant.timeZone}
            empty="No denials lately: every recent check of your keys was within your limits. A denied check (429) shows here with the limit that refused it."
          />
        ) : (
          <ErrorPanel problem={denials.problem} />
        )}
      </div>
    </>
  );
}

/** The dashboard's own download route: it adds the session, which never reaches the browser's script. */
function exportHref(range: TimeRange): string {
  return `${USAGE_PATH}/export?${rangeQuery(range)}`;
}
