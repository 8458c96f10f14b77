import type { Metadata } from 'next';
import Link from 'next/link';
import { ErrorPanel } from '@/components/error-panel';
import { MutationStatusProvider } from '@/components/mutation-status';
import { PageHeading } from '@/components/page-heading';
import { TenantFacts } from '@/components/tenant-facts';
import { TenantLimits } from '@/components/tenant-limits';
import { getPlan, getTenant } from '@/lib/api';
import { tenantLimitRows } from '@/lib/overrides';
import { loadWithSession } from '@/lib/session';

export const metadata: Metadata = { title: 'Tenant limits' };

interface TenantPageProps {
  params: Promise<{ tenantId: string }>;
}

/** One tenant's limits: its plan's next to its overrides, which the operator adds, changes and removes here. */
export default async function TenantPage({ params }: TenantPageProps) {
  const { tenantId } = await params;
  const loaded = await loadWithSession(async (token) => {
    const tenant = await getTenant(token, tenantId);
    return { tenant, plan: await getPlan(token, tenant.plan.id) };
  });

  if (!loaded.ok) {
    return (
      <>
        <PageHeading title="Tenant" description="A tenant's limits and overrides.">
          <BackLink />
        </PageHeading>
        <ErrorPanel problem={loaded.problem} />
      </>
    );
  }

  const { tenant, plan } = loaded.data;
  return (
    <>
      <PageHeading
        title={tenant.name}
        description={`An override replaces plan ${plan.name}'s limit of the same name for this tenant only, or adds a limit. Every change publishes a new rule set.`}
      >
        <BackLink />
      </PageHeading>
      <MutationStatusProvider>
        <div className="plan-grid">
          <TenantFacts tenant={tenant} plan={plan} />
          <TenantLimits
            tenant={{ id: tenant.id, slug: tenant.slug }}
            plan={{ slug: plan.slug, name: plan.name }}
            rows={tenantLimitRows(plan.limits, tenant.overrides)}
          />
        </div>
      </MutationStatusProvider>
    </>
  );
}

function BackLink() {
  return (
    <Link href="/tenants" className="btn btn-secondary" data-testid="tenant-back">
      ← All tenants
    </Link>
  );
}
