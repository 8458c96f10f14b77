import { POLICY_METHODS, POLICY_MODES } from '@/lib/api-answers';
import { FilterForm } from './filter-form';
import type { NamedOption } from './named-select';

interface PolicyFiltersProps {
  plans: NamedOption[];
  tenants: NamedOption[];
  params: Record<string, string | string[] | undefined>;
}

/** Policies by text (part of the name or route), owner (a plan or a tenant), method and mode. */
export function PolicyFilters({ plans, tenants, params }: PolicyFiltersProps) {
  return (
    <FilterForm
      path="/policies"
      label="Filter policies"
      testPrefix="policy"
      params={params}
      filters={[
        { name: 'q', label: 'Search', search: { placeholder: 'name or route' } },
        {
          name: 'owner',
          label: 'Owner',
          options: [
            ...plans.map((p) => ({ value: `plan:${p.id}`, label: `plan ${p.slug}` })),
            ...tenants.map((t) => ({ value: `tenant:${t.id}`, label: `tenant ${t.slug}` })),
          ],
        },
        { name: 'method', label: 'Method', options: POLICY_METHODS.map((m) => ({ value: m, label: m === '*' ? '* (every method)' : m })) },
        { name: 'mode', label: 'Mode', options: POLICY_MODES.map((m) => ({ value: m, label: m })) },
      ]}
    />
  );
}
