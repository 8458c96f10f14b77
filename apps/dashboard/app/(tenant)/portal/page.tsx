import type { Metadata } from 'next';
import { ErrorPanel } from '@/components/error-panel';
import { LimitList } from '@/components/limit-list';
import { PageHeading } from '@/components/page-heading';
import { PoliciesInForce } from '@/components/policies-in-force';
import { TenantFacts } from '@/components/tenant-facts';
import { getOwnLimits, getOwnTenant } from '@/lib/api';
import { loadWithSession } from '@/lib/session';

export const metadata: Metadata = { title: 'Limits' };

/** A tenant user's home: its tenant, and the limits and policies every check of the tenant is held to now. */
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

  const [tenant, { ruleVersion, limits, policies }] = loaded.data;
  return (
    <>
      <PageHeading title={tenant.name} description="The limits every check of your API keys is held to, as enforced now." />
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
            <span className="tenant-count">A check passes only when it is within every one of them.</span>
          </header>
          {limits.length === 0 ? (
            <p className="panel muted">No limits: your checks are not throttled.</p>
          ) : (
            <LimitList limits={limits} testId={(name) => `own-limit-${name}`} />
          )}
        </section>
        <PoliciesInForce policies={policies} />
      </div>
    </>
  );
}
