import type { Plan } from '@/lib/api-types';
import { formatAlgorithm, formatCount, formatWindow } from '@/lib/format';
import { LimitForm } from './limit-save';

export function PlanCard({ plan }: { plan: Plan }) {
  return (
    <section className="card" aria-labelledby={`plan-${plan.slug}`} data-testid={`plan-${plan.slug}`}>
      <header className="plan-card-header">
        <h2 id={`plan-${plan.slug}`}>{plan.name}</h2>
        <span className="chip">{plan.slug}</span>
        <span className="tenant-count">
          {formatCount(plan.tenantCount)} {plan.tenantCount === 1 ? 'tenant' : 'tenants'}
        </span>
      </header>
      {plan.limits.length === 0 ? (
        <p className="panel muted">This plan has no limits: its tenants are not throttled.</p>
      ) : (
        <ul className="limit-list">
          <li className="limit-row limit-list-head" aria-hidden="true">
            <span>Name</span>
            <span>Algorithm</span>
            <span>Limit</span>
          </li>
          {plan.limits.map((limit) => (
            <li key={limit.id} className="limit-row" data-testid={`limit-${plan.slug}-${limit.name}`}>
              <div className="limit-cell">
                <div className="limit-name">{limit.name}</div>
                <div className="limit-window">
                  {formatCount(limit.limit)} {formatWindow(limit.windowS)}
                </div>
              </div>
              <div className="limit-cell">{formatAlgorithm(limit.algorithm)}</div>
              <LimitForm planId={plan.id} planSlug={plan.slug} planName={plan.name} limit={limit} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
