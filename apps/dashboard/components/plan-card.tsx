import type { Plan } from '@/lib/api-answers';
import { PlanFooter } from './limit-add';
import { LimitListHead, LimitRow } from './limit-row';
import { PlanHeader } from './plan-header';

export function PlanCard({ plan }: { plan: Plan }) {
  const ref = { id: plan.id, slug: plan.slug, name: plan.name };
  return (
    <section className="card" aria-labelledby={`plan-${plan.slug}`} data-testid={`plan-${plan.slug}`}>
      <PlanHeader plan={{ ...ref, tenantCount: plan.tenantCount }} />
      {plan.limits.length === 0 ? (
        <p className="panel muted">This plan has no limits: its tenants are not throttled.</p>
      ) : (
        <ul className="limit-list">
          <LimitListHead third="Limit" />
          {plan.limits.map((limit) => (
            <LimitRow key={limit.id} plan={ref} limit={limit} />
          ))}
        </ul>
      )}
      <PlanFooter plan={ref} />
    </section>
  );
}
