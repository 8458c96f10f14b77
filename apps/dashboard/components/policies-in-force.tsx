import type { PolicyInForce } from '@/lib/api-answers';
import { formatCount } from '@/lib/format';
import { MODE_LABELS, SCOPE_LABELS } from '@/lib/policies';
import { LimitList } from './limit-list';
import './policies-in-force.css';

/** The endpoint policies a tenant is held to: route, mode, cost, whose requests share a bucket, and their limits. */
export function PoliciesInForce({ policies }: { policies: PolicyInForce[] }) {
  return (
    <section className="card" aria-labelledby="own-policies-title" data-testid="own-policies">
      <header className="plan-card-header">
        <h2 id="own-policies-title">Endpoint policies</h2>
        <span className="tenant-count">Routes with a cost or limits of their own.</span>
      </header>
      {policies.length === 0 ? (
        <p className="panel muted">No endpoint policies: every route costs 1 and is held to the limits above alone.</p>
      ) : (
        policies.map((policy) => (
          <div key={policy.id} className="policy-in-force" data-testid={`own-policy-${policy.name}`}>
            <h3 className="policy-in-force-head">
              <code>{policy.route}</code>
              <span className={`badge badge-mode-${policy.mode}`} title={MODE_LABELS[policy.mode]}>
                {policy.mode}
              </span>
              <span className="muted">
                cost {formatCount(policy.cost)} · {SCOPE_LABELS[policy.scope].toLowerCase()}
              </span>
            </h3>
            {policy.limits.length === 0 ? (
              <p className="panel muted">No limits of its own: it sets the cost of its requests.</p>
            ) : (
              <LimitList limits={policy.limits} prefix={policy.name} testId={(name) => `own-limit-${name}`} />
            )}
          </div>
        ))
      )}
    </section>
  );
}
