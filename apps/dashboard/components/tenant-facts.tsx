import type { Tenant } from '@/lib/api-answers';
import { StatusBadge } from './status-badge';

interface TenantFactsProps {
  tenant: Pick<Tenant, 'slug' | 'status' | 'timeZone'>;
  plan: { slug: string; name: string };
}

/** A tenant's plan, status, time zone and slug (what services name it by in a check). */
export function TenantFacts({ tenant, plan }: TenantFactsProps) {
  return (
    <dl className="card facts" data-testid="tenant-facts">
      <div>
        <dt>Plan</dt>
        <dd>
          {plan.name} <span className="muted mono">({plan.slug})</span>
        </dd>
      </div>
      <div>
        <dt>Status</dt>
        <dd>
          <StatusBadge status={tenant.status} />
        </dd>
      </div>
      <div>
        <dt>Time zone</dt>
        <dd>{tenant.timeZone}</dd>
      </div>
      <div>
        <dt>Tenant</dt>
        <dd>
          <span className="chip">{tenant.slug}</span>
        </dd>
      </div>
    </dl>
  );
}
