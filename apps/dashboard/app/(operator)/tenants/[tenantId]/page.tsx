import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { ErrorPanel } from '@/components/error-panel';
import { LiveLimitList } from '@/components/live-limits';
import { MutationStatusProvider } from '@/components/mutation-status';
import { PageHeading } from '@/components/page-heading';
import { RecentDenials } from '@/components/recent-denials';
import { TenantCaps } from '@/components/tenant-caps';
import { TenantFacts } from '@/components/tenant-facts';
import { TenantLimits } from '@/components/tenant-limits';
import { AutoRefresh } from '@/components/usage/auto-refresh';
import { TenantRelated } from '@/components/tenant-related';
import { RangePicker } from '@/components/usage/range-picker';
import { RouteTable } from '@/components/usage/route-table';
import '@/components/usage/usage.css';
import { UsageChart } from '@/components/charts/server-usage-chart';
import { UsagePanel } from '@/components/usage-panel';
import { ApiError, getPlan, getTenant, getTenantCaps, getTenantDenials, getTenantLimitsInForce, getUsage, getUsageRoutes, listAccounts, listKeys, listPolicies } from '@/lib/api';
import type { LimitsInForce } from '@/lib/api-answers';
import { checksTenant } from '@/lib/keys';
import { tenantLimitRows } from '@/lib/overrides';
import type { SearchParams } from '@/lib/pagination';
import { loadWithSession, type Loaded } from '@/lib/session';
import { settled } from '@/lib/settled';
import { parseRange } from '@/lib/overview';
import { rangeLabel } from '@/lib/usage';

export const metadata: Metadata = { title: 'Tenant' };

/** How many policies and users the page lists before it points to their own pages. */
const LISTED = 100;
/** How many routes the page shows, most decisions first. */
const ROUTES_SHOWN = 10;

interface TenantPageProps {
  params: Promise<{ tenantId: string }>;
  searchParams: Promise<SearchParams>;
}

/**
 * One tenant: its limits now (used, left, when whole again), its usage over a range, its recent denials, its limits
 * and overrides (which the operator changes here), its caps on webhook endpoints and alert rules (changed here too),
 * and its policies, keys and users.
 */
export default async function TenantPage({ params, searchParams }: TenantPageProps) {
  const { tenantId } = await params;
  const range = parseRange(await searchParams);
  const loaded = await loadWithSession(async (token) => {
    // An unknown id (or one that is not an id at all) is the API's 404: the page is not found, not failed.
    const tenant = await getTenant(token, tenantId).catch((error: unknown) => {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    });
    if (!tenant) return null;
    const { from, to } = range;
    const [plan, limits, usage, routes, denials, policies, keys, serviceKeys, users, caps] = await Promise.all([
      getPlan(token, tenant.plan.id),
      settled(getTenantLimitsInForce(token, tenant.id)),
      settled(getUsage(token, { from, to }, { tenant: tenant.slug })),
      settled(getUsageRoutes(token, { from, to }, 'decisions', { tenant: tenant.slug, top: ROUTES_SHOWN })),
      settled(getTenantDenials(token, tenant.slug)),
      settled(
        Promise.all([listPolicies(token, { tenantId: tenant.id }, undefined, LISTED), listPolicies(token, { planId: tenant.plan.id }, undefined, LISTED)]).then(
          ([own, planPolicies]) => ({ own: own.items, plan: planPolicies.items, more: own.nextCursor !== null || planPolicies.nextCursor !== null }),
        ),
      ),
      settled(listKeys(token, { kind: 'tenant', tenantId: tenant.id })),
      // The service keys that may check it: of every tenant, or of a list that names it (the newest 100 active ones).
      settled(listKeys(token, { kind: 'service', revoked: false }).then((items) => items.filter((key) => checksTenant(key, tenant.id)))),
      settled(listAccounts(token, { tenantId: tenant.id }, undefined, LISTED).then((page) => ({ items: page.items, more: page.nextCursor !== null }))),
      settled(getTenantCaps(token, tenant.id)),
    ]);
    return { tenant, plan, limits, usage, routes, denials, policies, keys, serviceKeys, users, caps };
  });

  if (loaded.ok && loaded.data === null) notFound();
  if (!loaded.ok || loaded.data === null) {
    return (
      <>
        <PageHeading title="Tenant" description="A tenant's usage, limits and overrides.">
          <BackLink />
        </PageHeading>
        {!loaded.ok && <ErrorPanel problem={loaded.problem} />}
      </>
    );
  }

  const { tenant, plan, limits, usage, routes, denials, policies, keys, serviceKeys, users, caps } = loaded.data;
  const path = `/tenants/${encodeURIComponent(tenant.id)}`;
  return (
    <>
      <PageHeading title={tenant.name} description={`Usage and limits of tenant ${tenant.slug}. An override replaces plan ${plan.name}'s limit of the same name for this tenant only, or adds a limit.`}>
        <BackLink />
      </PageHeading>
      <MutationStatusProvider>
        <div className="plan-grid">
          <TenantFacts tenant={tenant} plan={plan} />
          <LimitsNow limits={limits} timeZone={tenant.timeZone} />
          <div>
            <RangePicker path={path} range={range} />
            {usage.ok ? (
              <UsagePanel title={`Usage, ${rangeLabel(range)}`} id="tenant-usage" series={usage.data}>
                <UsageChart series={usage.data} title={`Decisions of ${tenant.slug}, ${rangeLabel(range)}`} />
              </UsagePanel>
            ) : (
              <ErrorPanel problem={usage.problem} />
            )}
          </div>
          {routes.ok ? (
            <RouteTable
              title={`What ${tenant.slug} is hitting, ${rangeLabel(range)}`}
              routes={routes.data}
              testId="tenant-routes"
              empty="No checks in this range: the routes this tenant's checks name show here, with the limits that denied them."
            />
          ) : (
            <ErrorPanel problem={routes.problem} />
          )}
          {denials.ok ? (
            <RecentDenials items={denials.data.items} timeZone={tenant.timeZone} empty="No denials lately: every recent check of this tenant was within its limits." />
          ) : (
            <ErrorPanel problem={denials.problem} />
          )}
          <TenantLimits
            tenant={{ id: tenant.id, slug: tenant.slug }}
            plan={{ slug: plan.slug, name: plan.name }}
            rows={tenantLimitRows(plan.limits, tenant.overrides)}
          />
          {caps.ok ? <TenantCaps tenant={{ id: tenant.id, slug: tenant.slug }} caps={caps.data} /> : <ErrorPanel problem={caps.problem} />}
          <TenantRelated tenant={tenant} plan={plan} policies={policies} keys={keys} serviceKeys={serviceKeys} users={users} />
        </div>
      </MutationStatusProvider>
    </>
  );
}

/** The tenant's limits as enforced now, each with what is used of it. */
function LimitsNow({ limits, timeZone }: { limits: Loaded<LimitsInForce>; timeZone: string }) {
  if (!limits.ok) return <ErrorPanel problem={limits.problem} />;
  const { ruleVersion, limits: specs, live } = limits.data;
  return (
    <section className="card" aria-labelledby="live-limits-title" data-testid="tenant-live-limits">
      <header className="plan-card-header">
        <h2 id="live-limits-title">Limits now</h2>
        <span className="chip" title="The rule set version every API node enforces">
          rule set v{ruleVersion}
        </span>
        <span className="tenant-count">Read without charging · resets in {timeZone}</span>
        <AutoRefresh />
      </header>
      {specs.length === 0 ? (
        <p className="panel muted">No limits: this tenant&apos;s checks are not throttled. Add an override below, or give its plan a limit.</p>
      ) : (
        <LiveLimitList
          limits={specs}
          live={live}
          timeZone={timeZone}
          testId={(name) => `live-limit-${name}`}
          whenFull={<>To let more through now, raise it with Override under Limits below, or move the tenant to a plan with more.</>}
        />
      )}
    </section>
  );
}

function BackLink() {
  return (
    <Link href="/tenants" className="btn btn-secondary" data-testid="tenant-back">
      ← All tenants
    </Link>
  );
}
