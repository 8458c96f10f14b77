import type { Metadata } from 'next';
import { UsageChart } from '@/components/charts/server-usage-chart';
import { ErrorPanel } from '@/components/error-panel';
import { PageHeading } from '@/components/page-heading';
import { AutoRefresh } from '@/components/usage/auto-refresh';
import { MinVolumePicker } from '@/components/usage/min-volume';
import { NoTraffic } from '@/components/usage/no-traffic';
import { RangePicker } from '@/components/usage/range-picker';
import { RefusedReasons } from '@/components/usage/refused-reasons';
import { RouteTable } from '@/components/usage/route-table';
import { TopTable } from '@/components/usage/top-table';
import { UsageTotalsTiles } from '@/components/usage/usage-totals';
import '@/components/usage/usage.css';
import { getUsage, getUsageRoutes, getUsageTop, listRuleSetsBetween } from '@/lib/api';
import { formatTimestamp } from '@/lib/format';
import { DEFAULT_RANGE, namesRange, parseMinVolume, parseRange, PRESET_RANGES, previousRange, rangeForTraffic, rangeQuery, ruleSetMarkers, totalsOf, trafficProbe } from '@/lib/overview';
import type { SearchParams } from '@/lib/pagination';
import { loadWithSession } from '@/lib/session';

export const metadata: Metadata = { title: 'Overview' };

const PATH = '/overview';

interface OverviewPageProps {
  searchParams: Promise<SearchParams>;
}

/** The operator's landing page: decisions over a range, against the range before it, and who was limited most. */
export default async function OverviewPage({ searchParams }: OverviewPageProps) {
  const params = await searchParams;
  const now = new Date();
  // Without a range in the URL, the one the traffic there is fills (a failed read: the default, and its error below).
  const probe = namesRange(params) ? null : await loadWithSession((token) => getUsage(token, trafficProbe(now)));
  const range = parseRange(params, now, probe?.ok ? rangeForTraffic(probe.data, now) : undefined);
  const min = parseMinVolume(params);
  const before = previousRange(range);
  const loaded = await loadWithSession(async (token) => {
    const [series, previous, tenants, policies, routes, versions, refused] = await Promise.all([
      getUsage(token, range),
      getUsage(token, before),
      getUsageTop(token, range, 'tenants', min),
      getUsageTop(token, range, 'policies', min),
      getUsageRoutes(token, range, 'deny_rate', { minDecisions: min, top: 5 }),
      listRuleSetsBetween(token, range.from, range.to),
      getUsageTop(token, range, 'tenants', 1, 5, 'refused'),
    ]);
    return { series, previous, tenants, policies, routes, versions, refused };
  });
  const query = rangeQuery(range);
  const fitted = probe?.ok === true && range.id !== DEFAULT_RANGE;

  return (
    <>
      <PageHeading
        title="Overview"
        description={`Every decision Tollgate made from ${formatTimestamp(range.from.toISOString())} to ${formatTimestamp(range.to.toISOString())}, against the ${range.id === 'custom' ? 'range of the same length' : PRESET_RANGES.find((r) => r.id === range.id)!.label} before it.${fitted ? ` Opened on ${PRESET_RANGES.find((r) => r.id === range.id)!.label}, the shortest range that holds all of the recent traffic.` : ''}`}
      >
        {range.live && <AutoRefresh />}
      </PageHeading>
      <RangePicker path={PATH} range={range} keep={{ min: String(min) }} />
      {!loaded.ok ? (
        <ErrorPanel problem={loaded.problem} />
      ) : (
        <Overview {...loaded.data} min={min} query={query} />
      )}
    </>
  );
}

function Overview({
  series,
  previous,
  tenants,
  policies,
  routes,
  versions,
  refused,
  min,
  query,
}: {
  series: Awaited<ReturnType<typeof getUsage>>;
  previous: Awaited<ReturnType<typeof getUsage>>;
  tenants: Awaited<ReturnType<typeof getUsageTop>>;
  policies: Awaited<ReturnType<typeof getUsageTop>>;
  routes: Awaited<ReturnType<typeof getUsageRoutes>>;
  versions: Awaited<ReturnType<typeof listRuleSetsBetween>>;
  refused: Awaited<ReturnType<typeof getUsageTop>>;
  min: number;
  query: URLSearchParams;
}) {
  const totals = totalsOf(series);
  const before = totalsOf(previous);
  return (
    <div className="usage-page">
      <UsageTotalsTiles current={totals} previous={before} degradedHref={`${PATH}/degraded?${query}`} />
      {totals.decisions === 0 && totals.refused === 0 ? (
        <NoTraffic everSeen={before.decisions > 0} />
      ) : (
        <>
          <section className="card usage-chart-card" aria-labelledby="overview-chart-title">
            <h2 id="overview-chart-title" className="card-title">
              Allowed and denied, per {series.step}
            </h2>
            <UsageChart series={series} title={`Decisions per ${series.step}`} markers={ruleSetMarkers(versions)} testId="overview-chart" />
          </section>
          <MinVolumePicker path={PATH} query={query} min={min} />
          <div className="usage-tops">
            <TopTable title="Most limited tenants" top={tenants} testId="top-tenants" />
            <TopTable title="Most limited endpoints" top={policies} testId="top-policies" />
            <TopTable title="Most refused checks" top={refused} testId="top-refused" />
            <section className="card refused-card" aria-labelledby="refused-reasons-title">
              <h2 id="refused-reasons-title" className="card-title">
                Refused checks by reason
              </h2>
              <RefusedReasons reasons={series.refusedByReason} testId="overview-refused-reasons" empty="No check was refused in this range." />
            </section>
            <RouteTable
              title="Most limited routes"
              routes={routes}
              testId="top-routes"
              empty={`No route was limited in this range with at least ${min} decisions, endpoint policy or none.`}
            />
          </div>
        </>
      )}
    </div>
  );
}
