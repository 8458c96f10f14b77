import type { Metadata } from 'next';
import { ErrorPanel } from '@/components/error-panel';
import { LiveLimitList } from '@/components/live-limits';
import { PageHeading } from '@/components/page-heading';
import { PoliciesInForce } from '@/components/policies-in-force';
import { TenantFacts } from '@/components/tenant-facts';
import { AutoRefresh } from '@/components/usage/auto-refresh';
import { getOwnLimits, getOwnTenant } from '@/lib/api';
import { config } from '@/lib/config';
import { loadWithSession } from '@/lib/session';

export const metadata: Metadata = { title: 'Limits' };

/** A tenant user's home: its tenant, its limits with what is used of each now, and the policies it is held to. */
export default async function PortalPage() {
  const loaded = await loadWithSession((token) => Promise.all([getOwnTenant(token), getOwnLimits(token)]));
  if (!loaded.ok) {
    return (
      <>
        <PageHeading title="Your limits" description="The limits every check of your API keys is held to." />
        <ErrorPanel problem={loaded.problem} />
      </>
    );
  }

  const [tenant, { ruleVersion, limits, policies, live }] = loaded.data;
  return (
    <>
      <PageHeading title={tenant.name} description="The limits every check of your API keys is held to, and how much of each is used now." />
      <div className="plan-grid">
        <TenantFacts tenant={tenant} plan={tenant.plan} />
        {tenant.status === 'suspended' && (
          <p className="form-alert" role="alert" data-testid="tenant-suspended">
            Your account is suspended: every check is denied. Ask your operator to resume it.
          </p>
        )}
        <section className="card" aria-labelledby="own-limits-title" data-testid="own-limits">
          <header className="plan-card-header">
            <h2 id="own-limits-title">Limits</h2>
            <span className="chip" data-testid="own-rule-version" title="The rule set version every API node enforces">
              rule set v{ruleVersion}
            </span>
            <span className="tenant-count">A check passes only when it is within every one of them. Times in {tenant.timeZone}.</span>
            <AutoRefresh />
          </header>
          {limits.length === 0 ? (
            <p className="panel muted">No limits: your checks are not throttled.</p>
          ) : (
            <LiveLimitList limits={limits} live={live} timeZone={tenant.timeZone} testId={(name) => `own-limit-${name}`} whenFull={<AskForMore />} />
          )}
        </section>
        <PoliciesInForce policies={policies} />
      </div>
    </>
  );
}

/** Where a tenant at 100 % gets more: the installation's page for it (TENANT_UPGRADE_URL), else its operator. */
function AskForMore() {
  if (!config.tenantUpgradeUrl) return <>To get more, ask the operator of this service for a bigger plan.</>;
  return (
    <>
      To get more,{' '}
      <a href={config.tenantUpgradeUrl} data-testid="tenant-upgrade-link">
        {config.tenantUpgradeUrl.startsWith('mailto:') ? `write to ${config.tenantUpgradeUrl.slice('mailto:'.length).split('?')[0]}` : 'upgrade your plan'}
      </a>
      .
    </>
  );
}
