import { beforeAll, describe, expect, it } from 'vitest';
import { MINUTE, type UsageFixture, useUsageFixture } from '../../../../../test/support/usage-fixture';

// The drill-down of the overview's Degraded tile: degraded decisions by cause, per bucket and per tenant.
describe('GET /v1/admin/usage/degraded', () => {
  const f = useUsageFixture();
  const { tokens, iso, usage, insert } = f;
  let a: UsageFixture['a'];
  let b: UsageFixture['b'];
  let from: number;
  const path = '/v1/admin/usage/degraded';
  const none = { deadline: 0, circuit_open: 0, redis_error: 0, replica: 0, unknown: 0 };

  beforeAll(async () => {
    ({ a, b } = f);
    // Minutes 10 to 12 after the fixture's base, which no other test of the fixture writes.
    from = f.base + 10 * MINUTE;
    await insert('usageMinute', from, a.id, null, 'degraded_allowed', 'open:deadline', 3, 3);
    await insert('usageMinute', from, a.id, f.policyOfA, 'degraded_denied', 'local:redis_error', 2);
    await insert('usageMinute', from, b.id, f.planPolicy, 'degraded_denied', 'closed:circuit_open', 4);
    await insert('usageMinute', from, b.id, f.planPolicy, 'allowed', '', 50, 50);
    // Counted before usage kept the cause: its reason is the failure mode alone.
    await insert('usageMinute', from + 2 * MINUTE, a.id, null, 'degraded_allowed', 'open', 1, 1);
  });

  it('counts the degraded decisions of the range by cause, per minute and per tenant, most first', async () => {
    const r = await usage({ from: iso(from), to: iso(from + 3 * MINUTE) }, path);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ from: iso(from), to: iso(from + 3 * MINUTE), step: 'minute', decisions: 10, byCause: { deadline: 3, circuit_open: 4, redis_error: 2, replica: 0, unknown: 1 } });
    expect(r.body.points).toEqual([
      { at: iso(from), decisions: 9, byCause: { ...none, deadline: 3, circuit_open: 4, redis_error: 2 } },
      { at: iso(from + MINUTE), decisions: 0, byCause: none },
      { at: iso(from + 2 * MINUTE), decisions: 1, byCause: { ...none, unknown: 1 } },
    ]);
    expect(r.body.tenants).toEqual([
      { tenant: { id: a.id, slug: a.slug, name: a.name }, decisions: 6, byCause: { ...none, deadline: 3, redis_error: 2, unknown: 1 } },
      { tenant: { id: b.id, slug: b.slug, name: b.name }, decisions: 4, byCause: { ...none, circuit_open: 4 } },
    ]);
  });

  it('lists at most `top` tenants', async () => {
    const r = await usage({ from: iso(from), to: iso(from + 3 * MINUTE), top: 1 }, path);
    expect(r.body.tenants.map((t: { tenant: { id: string } }) => t.tenant.id)).toEqual([a.id]);
    expect(r.body.decisions).toBe(10);
  });

  it('still reads `limit`, the deprecated name of `top`, when `top` is left out', async () => {
    const tenantsOf = async (query: Record<string, unknown>) =>
      (await usage({ from: iso(from), to: iso(from + 3 * MINUTE), ...query }, path)).body.tenants.map((t: { tenant: { id: string } }) => t.tenant.id);
    expect(await tenantsOf({ limit: 1 })).toEqual([a.id]);
    expect(await tenantsOf({ limit: 1, top: 2 })).toEqual([a.id, b.id]);
  });

  it('answers a range without any with zeros', async () => {
    const r = await usage({ from: iso(from + MINUTE), to: iso(from + 2 * MINUTE) }, path);
    expect(r.body).toMatchObject({ decisions: 0, byCause: none, points: [{ at: iso(from + MINUTE), decisions: 0, byCause: none }], tenants: [] });
  });

  it.each([
    ['a top of 0', { top: 0 }, 'top'],
    ['a top over 100', { top: 101 }, 'top'],
    ['a limit (the old name of top) over 100', { limit: 101 }, 'limit'],
    ['from after to', { from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' }, 'from'],
    ['a filter it does not take', { tenant: 'acme' }, undefined],
  ])('refuses %s with 400', async (_name, query, field) => {
    const r = await usage(query, path);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'validation_failed', ...(field ? { field } : {}) });
  });

  it("is an operator's: a tenant's user and a tenant key are refused", async () => {
    expect((await usage({}, path, tokens.userA)).status).toBe(403);
    expect((await usage({}, path, tokens.keyA)).status).toBe(403);
  });
});
