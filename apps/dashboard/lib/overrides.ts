import type { LimitOverride, PlanLimit } from './api-answers';

/**
 * One row of a tenant's limits: its plan's limit of that name, the tenant's override of it, or both (the override
 * is what is enforced). Pure, so the page and its tests share it.
 */
export interface TenantLimitRow {
  name: string;
  /** What is enforced: the override when there is one, else the plan's limit. */
  enforced: PlanLimit | LimitOverride;
  plan?: PlanLimit;
  override?: LimitOverride;
}

/** The plan's limits in the plan's order, each with its override; then the overrides the plan has no limit for. */
export function tenantLimitRows(planLimits: readonly PlanLimit[], overrides: readonly LimitOverride[]): TenantLimitRow[] {
  const byName = new Map(overrides.map((override) => [override.name, override]));
  const rows: TenantLimitRow[] = planLimits.map((plan) => {
    const override = byName.get(plan.name);
    return override ? { name: plan.name, enforced: override, plan, override } : { name: plan.name, enforced: plan, plan };
  });
  const planNames = new Set(planLimits.map((limit) => limit.name));
  for (const override of overrides) if (!planNames.has(override.name)) rows.push({ name: override.name, enforced: override, override });
  return rows;
}
