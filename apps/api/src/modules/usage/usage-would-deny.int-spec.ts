import { randomUUID } from 'node:crypto';
import { COUNTED_KEY, denialFields, denialsKey, type DenialSample } from '@tollgate/usage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant } from '../../../../../test/support/fixtures';
import { HOUR, MINUTE, useUsageFixture } from '../../../../../test/support/usage-fixture';

// What enforcing a policy in shadow mode would have refused: the exact count from the rollup tables (written here as
// the worker would), the subjects from the tenants' sampled would-denies (written into their streams as the API
// nodes would).
describe('usage API: would-deny preview of a policy', () => {
  const f = useUsageFixture();
  const { ctx, iso, usage, insert } = f;
  let hour: number;
  let policy: string;
  let other: string;
  let t1: { id: string; slug: string; name: string };
  let t2: { id: string; slug: string; name: string };

  const sample = (over: Partial<DenialSample>): DenialSample => ({ policyId: policy, endpoint: 'GET /v1/trial', subject: 'alice', limit: 'minute', remaining: 0, result: 'shadow_denied', ...over });
  const add = (tenantId: string, at: number, over: Partial<DenialSample>) => f.redis.xadd(denialsKey(tenantId), `${at}-0`, ...denialFields(sample(over)));

  beforeAll(async () => {
    // An hour after the ones the other usage files write: a fresh plan's policy, two tenants on it.
    hour = f.base + 11 * HOUR;
    const first = await createTenant(ctx.prisma);
    t1 = first.tenant;
    t2 = await ctx.prisma.tenant.create({ data: { slug: `wd-${randomUUID().slice(0, 8)}`, name: 'Second on the plan', planId: first.plan.id } });
    const suffix = randomUUID().slice(0, 8);
    policy = (await ctx.prisma.endpointPolicy.create({ data: { planId: first.plan.id, name: `trial${suffix}`, method: 'GET', pattern: `/trial-${suffix}`, mode: 'shadow' } })).id;
    other = (await ctx.prisma.endpointPolicy.create({ data: { planId: first.plan.id, name: `other${suffix}`, method: 'GET', pattern: `/other-${suffix}`, mode: 'shadow' } })).id;

    await insert('usageMinute', hour - 10 * MINUTE, t1.id, policy, 'shadow_denied', 'minute', 4, 4);
    await insert('usageMinute', hour + 1 * MINUTE, t1.id, policy, 'shadow_denied', 'minute', 7, 7);
    await insert('usageMinute', hour + 1 * MINUTE, t1.id, policy, 'allowed', '', 50, 50);
    await insert('usageMinute', hour + 1 * MINUTE, t1.id, other, 'shadow_denied', 'minute', 5, 5);
    await insert('usageMinute', hour + 2 * MINUTE, t2.id, policy, 'shadow_denied', 'minute', 3, 3);

    // Stream ids grow: oldest first.
    await add(t1.id, hour - 5 * MINUTE, { subject: 'erin' });
    await add(t1.id, hour + MINUTE + 1000, {});
    await add(t1.id, hour + MINUTE + 2000, {});
    await add(t1.id, hour + MINUTE + 3000, { subject: 'bob' });
    await add(t1.id, hour + MINUTE + 4000, { subject: 'carol', result: 'denied' });
    await add(t1.id, hour + MINUTE + 5000, { subject: 'dave', policyId: other });
    await add(t2.id, hour + 2 * MINUTE + 1000, {});
    // The worker has rolled everything up to now (it sets this; the rows above were written as it would).
    counted = await f.redis.get(COUNTED_KEY);
    await f.redis.set(COUNTED_KEY, String(Date.now()));
  });
  let counted: string | null;
  afterAll(async () => {
    if (counted === null) await f.redis.del(COUNTED_KEY);
    else await f.redis.set(COUNTED_KEY, counted);
  });

  const preview = (query: Record<string, string | number>) => usage({ policy, from: iso(hour), to: iso(hour + HOUR), ...query }, '/v1/admin/usage/would-deny');

  it('counts the exact would-denies of the range and lists the sampled subjects per tenant, most samples first', async () => {
    const r = await preview({});
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ from: iso(hour), to: iso(hour + HOUR), countedFrom: iso(hour), countedTo: iso(hour + HOUR), step: 'minute', shadowDenied: 10, tenants: 2, sampled: true, tenantsSampled: 2 });
    expect(r.body.policy).toMatchObject({ id: policy, method: 'GET' });
    expect(r.body.subjects).toEqual([
      { subject: 'alice', tenant: { id: t1.id, slug: t1.slug, name: t1.name }, samples: 2, lastAt: iso(hour + MINUTE + 2000) },
      { subject: 'alice', tenant: { id: t2.id, slug: t2.slug, name: t2.name }, samples: 1, lastAt: iso(hour + 2 * MINUTE + 1000) },
      { subject: 'bob', tenant: { id: t1.id, slug: t1.slug, name: t1.name }, samples: 1, lastAt: iso(hour + MINUTE + 3000) },
    ]);
  });

  it('samples the time the count covers: not past what the worker has rolled up, and from the start of the first bucket it reads', async () => {
    // Rolled up to 2.5 s into minute 1: bob's sample (3 s) and the second tenant's (minute 2) are not counted yet.
    await f.redis.set(COUNTED_KEY, String(hour + MINUTE + 2500));
    try {
      const r = await preview({});
      expect(r.body).toMatchObject({ countedTo: iso(hour + MINUTE + 2500), shadowDenied: 10 });
      expect(r.body.subjects.map((s: { subject: string; samples: number }) => [s.subject, s.samples])).toEqual([['alice', 2]]);
    } finally {
      await f.redis.set(COUNTED_KEY, String(Date.now()));
    }
    // From the middle of minute 1: the count holds the whole minute, and so do the samples (alice's first, at 1 s).
    const midMinute = await preview({ from: iso(hour + MINUTE + 1500) });
    expect(midMinute.body).toMatchObject({ step: 'minute', countedFrom: iso(hour + MINUTE), shadowDenied: 10 });
    expect(midMinute.body.subjects[0]).toMatchObject({ subject: 'alice', tenant: { id: t1.id }, samples: 2 });
  });

  it('lists at most `top` subjects, and nothing for a range without would-denies', async () => {
    expect((await preview({ top: 1 })).body.subjects.map((s: { subject: string }) => s.subject)).toEqual(['alice']);
    const empty = await preview({ from: iso(hour + 10 * MINUTE), to: iso(hour + 20 * MINUTE) });
    expect(empty.body).toMatchObject({ shadowDenied: 0, tenants: 0, tenantsSampled: 0, subjects: [] });
  });

  it.each([
    ['no policy', { policy: '' }, 400, 'validation_failed', 'policy'],
    ['a policy id that is not one', { policy: 'trial' }, 400, 'validation_failed', 'policy'],
    ['an unknown policy', { policy: randomUUID() }, 404, 'not_found', 'policy'],
    ['too many subjects', { top: 201 }, 400, 'validation_failed', 'top'],
    ['an unknown parameter', { tenant: 'x' }, 400, 'validation_failed', undefined],
  ])('refuses %s with a clear error', async (_what, query, status, code, field) => {
    const r = await preview(query);
    expect(r.status).toBe(status);
    expect(r.body.error.code).toBe(code);
    if (field !== undefined) expect(r.body.error.field).toBe(field);
  });
});
