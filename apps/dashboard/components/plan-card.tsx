import type { Plan } from '@/lib/api-answers';
import { OwnerLimits } from './limit-row';
import { PlanHeader } from './plan-header';

export function PlanCard({ plan }: { plan: Plan }) {
  return (
    <section className="card" aria-labelledby={`plan-${plan.slug}`} data-testid={`plan-${plan.slug}`}>
      <PlanHeader plan={{ id: plan.id, slug: plan.slug, name: plan.name, tenantCount: plan.tenantCount }} />
      <OwnerLimits
        owner={{ kind: 'plan', id: plan.id, name: plan.slug }}
        limits={plan.limits}
        empty="This plan has no limits: its tenants are not throttled."
      />
    </section>
  );
}
