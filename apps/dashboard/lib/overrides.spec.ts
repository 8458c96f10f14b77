import { describe, expect, it } from 'vitest';
import type { LimitOverride, PlanLimit } from './api-answers';
import { tenantLimitRows } from './overrides';

const planLimit = (name: string, limit: number): PlanLimit => ({ id: `id-${name}`, name, windowS: 60, limit, algorithm: 'fixed_window', burst: null, calendar: null });
const override = (name: string, limit: number): LimitOverride => ({ name, windowS: 60, limit, algorithm: 'token_bucket', burst: 5, calendar: null });

describe('tenantLimitRows', () => {
  it("pairs each plan limit with the tenant's override of the same name, in the plan's order", () => {
    const rows = tenantLimitRows([planLimit('minute', 10), planLimit('daily', 1000)], [override('minute', 2)]);
    expect(rows).toEqual([
      { name: 'minute', enforced: override('minute', 2), plan: planLimit('minute', 10), override: override('minute', 2) },
      { name: 'daily', enforced: planLimit('daily', 1000), plan: planLimit('daily', 1000) },
    ]);
  });

  it('lists the overrides the plan has no limit for after the plan’s limits', () => {
    const rows = tenantLimitRows([planLimit('minute', 10)], [override('second', 3), override('minute', 20)]);
    expect(rows.map((row) => [row.name, row.plan !== undefined, row.enforced.limit])).toEqual([
      ['minute', true, 20],
      ['second', false, 3],
    ]);
  });

  it('is empty for a plan without limits and a tenant without overrides', () => {
    expect(tenantLimitRows([], [])).toEqual([]);
  });
});
