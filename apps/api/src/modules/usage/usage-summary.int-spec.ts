import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { HOUR, MINUTE, type UsageFixture, useUsageFixture } from '../../../../../test/support/usage-fixture';

// The usage of a list page's rows in one read (GET /v1/admin/usage/summary): decisions, 429s, their rate and the
// shadow would-denies of each tenant or endpoint policy named, from the rows the fixture writes as the worker would.
describe('usage API: the summary of several tenants or policies', () => {
  const f = useUsageFixture();
  const { ctx, iso } = f;
  let a: UsageFixture['a'];
  let b: UsageFixture['b'];
  let base: number;
  beforeAll(() => {
    ({ a, b, base } = f);
  });

  const summary = (query: Record<string, string | number>, ids: readonly string[], token = ctx.session) => {
    const params = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
    for (const id of ids) params.append('id', id);
    return ctx.api.request('GET', `/v1/admin/usage/summary?${params}`, { token });
  };

  it('answers each tenant asked, in that order: every result a decision, 429s and their rate, would-denies; zeros for one without any', async () => {
    const nobody = randomUUID();
    const r = await summary({ by: 'tenants', from: iso(base), to: iso(base + 5 * MINUTE) }, [b.id, nobody, a.id]);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({
      by: 'tenants',
      from: iso(base),
      to: iso(base + 5 * MINUTE),
      step: 'minute',
      items: [
        { id: b.id, decisions: 13, denied: 6, denyRate: 6 / 13, shadowDenied: 0 },
        { id: nobody, decisions: 0, denied: 0, denyRate: null, shadowDenied: 0 },
        // Allowed 5, denied 2, a would-deny, 5 degraded and 3 refused.
        { id: a.id, decisions: 16, denied: 2, denyRate: 2 / 16, shadowDenied: 1 },
      ],
    });
  });

  it('reads a longer range at its step, and a policy over every tenant it applies to', async () => {
    const hours = await summary({ by: 'tenants', from: iso(base), to: iso(base + 7 * HOUR) }, [a.id]);
    expect(hours.body).toMatchObject({ step: 'hour', items: [{ id: a.id, decisions: 109, denied: 9, shadowDenied: 0 }] });
    const policies = await summary({ by: 'policies', from: iso(base), to: iso(base + 5 * MINUTE) }, [f.planPolicy, f.policyOfA, f.planPolicy]);
    expect(policies.body.items).toEqual([
      { id: f.planPolicy, decisions: 20, denied: 8, denyRate: 8 / 20, shadowDenied: 0 },
      { id: f.policyOfA, decisions: 1, denied: 0, denyRate: 0, shadowDenied: 1 },
    ]);
  });

  it('defaults to the day up to now', async () => {
    const r = await summary({ by: 'policies' }, [f.policyOfC]);
    expect(r.status).toBe(200);
    expect(Date.parse(r.body.to) - Date.parse(r.body.from)).toBe(24 * HOUR);
    expect(r.body.items).toEqual([{ id: f.policyOfC, decisions: 0, denied: 0, denyRate: null, shadowDenied: 0 }]);
  });

  it.each([
    [{ by: 'tenants' }, [], 'id'],
    [{ by: 'tenants' }, ['not-an-id'], 'id.0'],
    [{ by: 'keys' }, [randomUUID()], 'by'],
    [{}, [randomUUID()], 'by'],
    [{ by: 'tenants', tenant: 'acme' }, [randomUUID()], undefined],
    [{ by: 'tenants' }, Array.from({ length: 201 }, () => randomUUID()), 'id'],
    [{ by: 'tenants', from: iso(Date.now()), to: iso(Date.now() - HOUR) }, [randomUUID()], 'from'],
  ])('refuses %j with ids %j: a 400 naming %s', async (query, ids, field) => {
    const r = await summary(query, ids as string[]);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error.code).toBe('validation_failed');
    expect(r.body.error.field).toBe(field);
  });

  it('is for operators only', async () => {
    const r = await summary({ by: 'tenants' }, [a.id], f.tokens.userA);
    expect(r.status).toBe(403);
  });
});
