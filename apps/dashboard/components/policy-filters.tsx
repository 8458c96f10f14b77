import Link from 'next/link';
import { POLICY_METHODS, POLICY_MODES } from '@/lib/api-types';
import type { PlanOption } from './plan-select';

interface PolicyFiltersProps {
  plans: PlanOption[];
  tenants: PlanOption[];
  params: Record<string, string | string[] | undefined>;
}

/** A plain GET form: the filters live in the URL, so a filtered list can be bookmarked and works without script. */
export function PolicyFilters({ plans, tenants, params }: PolicyFiltersProps) {
  const value = (name: string) => {
    const v = params[name];
    return (Array.isArray(v) ? v[0] : v) ?? '';
  };
  return (
    <form method="get" action="/policies" className="card form-body" aria-label="Filter policies" data-testid="policy-filters">
      <div className="form-row">
        <div className="field field-compact">
          <label htmlFor="filter-owner">Owner</label>
          <select id="filter-owner" name="owner" className="input" defaultValue={value('owner')} data-testid="policy-filter-owner">
            <option value="">any</option>
            {plans.map((p) => (
              <option key={p.id} value={`plan:${p.id}`}>
                plan {p.slug}
              </option>
            ))}
            {tenants.map((t) => (
              <option key={t.id} value={`tenant:${t.id}`}>
                tenant {t.slug}
              </option>
            ))}
          </select>
        </div>
        <div className="field field-compact">
          <label htmlFor="filter-method">Method</label>
          <select id="filter-method" name="method" className="input" defaultValue={value('method')} data-testid="policy-filter-method">
            <option value="">any</option>
            {POLICY_METHODS.map((m) => (
              <option key={m} value={m}>
                {m === '*' ? '* (every method)' : m}
              </option>
            ))}
          </select>
        </div>
        <div className="field field-compact">
          <label htmlFor="filter-mode">Mode</label>
          <select id="filter-mode" name="mode" className="input" defaultValue={value('mode')} data-testid="policy-filter-mode">
            <option value="">any</option>
            {POLICY_MODES.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </div>
        <div className="form-row-buttons">
          <button type="submit" className="btn btn-secondary" data-testid="policy-filter-submit">
            Filter
          </button>
          <Link href="/policies" className="btn btn-secondary">
            Clear
          </Link>
        </div>
      </div>
    </form>
  );
}
