import type { Plan } from '@/lib/api-answers';
import { atLimitText, type PlanAtLimit, type RowTraffic } from '@/lib/list-traffic';
import { OwnerLimits } from './limit-row';
import { PlanHeader } from './plan-header';

export function PlanCard({ plan, atLimit }: { plan: Plan; atLimit: RowTraffic<PlanAtLimit> | null }) {
  const entry = atLimit?.rows.get(plan.id);
  return (
    <section className="card" aria-labelledby={`plan-${plan.slug}`} data-testid={`plan-${plan.slug}`}>
      <PlanHeader
        plan={{ id: plan.id, slug: plan.slug, name: plan.name, tenantCount: plan.tenantCount }}
        atLimit={atLimit === null || plan.tenantCount === 0 ? null : { text: atLimitText(entry, atLimit.live), count: atLimit.live ? (entry?.atLimit ?? 0) : 0 }}
      />
      <OwnerLimits
        owner={{ kind: 'plan', id: plan.id, name: plan.slug }}
        limits={plan.limits}
        empty="This plan has no limits: its tenants are not throttled."
      />
    </section>
  );
}
