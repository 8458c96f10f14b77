import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../../../../../test/support/context';
import { TEST_REDIS_URL } from '../../../../../test/support/env';
import { awayFromMinuteBoundary, createServiceKey, publishRules } from '../../../../../test/support/fixtures';

// The limits in force with their live state: what a tenant (GET /v1/tenant/limits) and an operator
// (GET /v1/admin/tenants/:tenantId/limits) see of the tenant's own limits, read with a peek that charges nothing.
describe('limits in force, with their live state', () => {
  const ctx = useOperatorApi();
  let tenant: { id: string; slug: string };
  let fresh: { id: string; slug: string };
  let userToken: string;
  let serviceKey: string;
  let planId: string;

  beforeAll(async () => {
    const suffix = randomUUID().slice(0, 8);
    // A bucket that refills one unit in 6 minutes and a minute's fixed window: their state holds still while the test reads it.
    const plan = await ctx.prisma.plan.create({
      data: {
        slug: `live-${suffix}`,
        name: `Live ${suffix}`,
        limits: {
          create: [
            { name: 'bucket', windowS: 3600, limit: 10, algorithm: 'token_bucket', burst: 5 },
            { name: 'minute', windowS: 60, limit: 100 },
          ],
        },
      },
    });
    planId = plan.id;
    tenant = await ctx.prisma.tenant.create({ data: { slug: `live-${suffix}`, name: 'Live', planId: plan.id } });
    fresh = await ctx.prisma.tenant.create({ data: { slug: `live-fresh-${suffix}`, name: 'Live fresh', planId: plan.id } });
    await ctx.prisma.endpointPolicy.create({
      data: { tenantId: tenant.id, name: 'search', method: 'GET', pattern: '/search', scope: 'subject', limits: { create: [{ name: 'minute', windowS: 60, limit: 3 }] } },
    });
    userToken = await ctx.signIn('tenant', tenant.id);
    serviceKey = await createServiceKey(ctx.prisma, [tenant.id]);
    const { version } = await publishRules(ctx.prisma, TEST_REDIS_URL);
    await ctx.api.waitForRuleVersion(version);
  });

  it("shows what each of the tenant's own limits has used, has left and when it is whole again, without charging", async () => {
    await awayFromMinuteBoundary();
    const before = Date.now();
    for (let i = 0; i < 3; i += 1) {
      const r = await ctx.api.request('POST', '/v1/check', { token: serviceKey, body: { tenant: tenant.slug, endpoint: 'GET /items' } });
      expect(r.body.allowed).toBe(true);
    }
    const first = await ctx.api.request('GET', '/v1/tenant/limits', { token: userToken });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    // In the order of the limits in force.
    expect(first.body.live.map((l: { name: string }) => l.name)).toEqual(first.body.limits.map((l: { name: string }) => l.name));
    const live = [...first.body.live].sort((x, y) => x.name.localeCompare(y.name));
    expect(live).toEqual([
      { name: 'bucket', limit: 5, used: 3, remaining: 2, resetsAt: expect.any(String) },
      { name: 'minute', limit: 100, used: 3, remaining: 97, resetsAt: expect.any(String) },
    ]);
    const [bucket, minute] = live as { resetsAt: string }[];
    // The bucket is whole again once 3 units flowed back (6 minutes each); the window at the end of its minute.
    expect(Date.parse(bucket!.resetsAt)).toBeGreaterThan(before + 2 * 360_000);
    expect(Date.parse(bucket!.resetsAt)).toBeLessThanOrEqual(Date.now() + 3 * 360_000);
    expect(Date.parse(minute!.resetsAt) % 60_000).toBe(0);
    // Reading it again charged nothing: the same units are used.
    const again = await ctx.api.request('GET', '/v1/tenant/limits', { token: userToken });
    expect(again.body.live.map((l: { used: number }) => l.used)).toEqual([3, 3]);
    const byName = <T extends { name: string }>(list: T[]) => [...list].sort((x, y) => x.name.localeCompare(y.name));
    // The operator sees the same, with the limits and policies in force.
    const operator = await ctx.api.request('GET', `/v1/admin/tenants/${tenant.id}/limits`, { token: ctx.session });
    expect(operator.status).toBe(200);
    expect(byName<{ name: string; used: number }>(operator.body.live).map((l) => [l.name, l.used])).toEqual([['bucket', 3], ['minute', 3]]);
    expect(byName<{ name: string }>(operator.body.limits).map((l) => l.name)).toEqual(['bucket', 'minute']);
    // The policy's limit counts per subject: it is in force, with no single state.
    expect(operator.body.policies.map((p: { route: string }) => p.route)).toEqual(['GET /search']);
    expect(operator.body.live.map((l: { name: string }) => l.name)).not.toContain('search-minute');
  });

  it('shows a limit nothing has used as whole, with nothing to reset', async () => {
    const r = await ctx.api.request('GET', `/v1/admin/tenants/${fresh.id}/limits`, { token: ctx.session });
    expect([...r.body.live].sort((x, y) => x.name.localeCompare(y.name))).toEqual([
      { name: 'bucket', limit: 5, used: 0, remaining: 5, resetsAt: null },
      { name: 'minute', limit: 100, used: 0, remaining: 100, resetsAt: null },
    ]);
  });

  it("reads the most used limit of several tenants, and how many of a plan's tenants are at a limit, in one request each", async () => {
    // Until the bucket (5) refuses: it is used up; the minute's window has 100.
    let denied = false;
    for (let i = 0; i < 10 && !denied; i += 1) {
      const r = await ctx.api.request('POST', '/v1/check', { token: serviceKey, body: { tenant: tenant.slug, endpoint: 'GET /items' } });
      denied = r.body.allowed === false;
    }
    expect(denied).toBe(true);
    const unknown = randomUUID();
    const ids = new URLSearchParams([['id', fresh.id], ['id', unknown], ['id', tenant.id]]);
    const used = await ctx.api.request('GET', `/v1/admin/tenants/limits-used?${ids}`, { token: ctx.session });
    expect(used.status, JSON.stringify(used.body)).toBe(200);
    expect(used.body).toEqual({
      live: true,
      items: [
        // Nothing used: the first of its limits (shortest window first), at 0.
        { tenantId: fresh.id, limits: 2, mostUsed: { name: 'minute', limit: 100, used: 0, remaining: 100, resetsAt: null, share: 0 } },
        { tenantId: tenant.id, limits: 2, mostUsed: { name: 'bucket', limit: 5, used: 5, remaining: 0, resetsAt: expect.any(String), share: 1 } },
      ],
    });
    // Reading charged nothing.
    const again = await ctx.api.request('GET', `/v1/admin/tenants/limits-used?id=${fresh.id}`, { token: ctx.session });
    expect(again.body.items[0].mostUsed.used).toBe(0);

    const planIds = new URLSearchParams([['id', planId], ['id', unknown]]);
    const plans = await ctx.api.request('GET', `/v1/admin/plans/at-limit?${planIds}`, { token: ctx.session });
    expect(plans.status, JSON.stringify(plans.body)).toBe(200);
    expect(plans.body).toEqual({ live: true, items: [{ planId, tenants: 2, checked: 2, atLimit: 1 }] });
  });

  it.each([
    ['/v1/admin/tenants/limits-used', ''],
    ['/v1/admin/tenants/limits-used', '?id=acme'],
    ['/v1/admin/plans/at-limit', '?id=1&id=2'],
    ['/v1/admin/plans/at-limit', `?id=${'0'.repeat(8)}-0000-4000-8000-000000000000&plan=x`],
  ])('refuses %s%s with a 400', async (path, query) => {
    const r = await ctx.api.request('GET', `${path}${query}`, { token: ctx.session });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error.code).toBe('validation_failed');
  });

  it('reads several tenants or plans for operators only', async () => {
    expect((await ctx.api.request('GET', `/v1/admin/tenants/limits-used?id=${tenant.id}`, { token: userToken })).status).toBe(403);
    expect((await ctx.api.request('GET', `/v1/admin/plans/at-limit?id=${planId}`, { token: userToken })).status).toBe(403);
  });

  it('answers an unknown tenant with 404', async () => {
    const r = await ctx.api.request('GET', '/v1/admin/tenants/00000000-0000-4000-8000-000000000000/limits', { token: ctx.session });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('not_found');
  });
});
