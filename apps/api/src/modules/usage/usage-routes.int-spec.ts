import { countsOf, minuteOf, PostgresUsageWriter, ROUTE_OTHER, routeCountsOf, type RouteCount, usageKey } from '@tollgate/usage';
import { describe, expect, it } from 'vitest';
import { useCheckApi } from '../../../../../test/support/context';
import { TEST_REDIS_URL } from '../../../../../test/support/env';
import { awayFromMinuteBoundary, createTenant, createTenantKey, publishRules } from '../../../../../test/support/fixtures';
import { UsageRecorder } from '../check/usage-recorder';

// Usage per route (docs/adr/0015-usage-counting-and-rollups.md): every decision is counted under the route its check
// named (`METHOD /path`, normalised as policies match it), whether or not an endpoint policy matched, by the limit
// script for the decisions Redis made and by the node for the others, at most USAGE_ROUTES_PER_TENANT_MINUTE routes a
// tenant and minute (here 3), the rest as `other`. The counts read back from Redis, written into Postgres the way the
// rollup writes a minute (twice: the rows are absolute), are what the routes API answers.
describe('usage per route', () => {
  const ctx = useCheckApi({ USAGE_FLUSH_MS: '3600000', USAGE_ROUTES_PER_TENANT_MINUTE: '3' });
  const { check } = ctx;
  const get = (path: string, token: string, query: Record<string, string>) => ctx.api.request('GET', `${path}?${new URLSearchParams(query).toString()}`, { token });
  const sorted = (rows: RouteCount[]) => [...rows].sort((a, b) => `${a.route}|${a.result}|${a.reason}`.localeCompare(`${b.route}|${b.result}|${b.reason}`));

  it('counts each route as checked, policy or none, caps the routes of a minute, and answers them exactly', async () => {
    const { plan, tenant } = await createTenant(ctx.prisma, [{ name: 'minute', windowS: 60, limit: 6 }]);
    await ctx.prisma.endpointPolicy.create({
      data: { planId: plan.id, name: 'search', method: 'GET', pattern: '/v1/search', cost: 1, scope: 'tenant', mode: 'enforce', limits: { create: [{ name: 'minute', windowS: 60, limit: 1 }] } },
    });
    const { key: expired } = await createTenantKey(ctx.prisma, tenant.id, { expiresAt: new Date(Date.now() - 1000) });
    await ctx.api.waitForRuleVersion((await publishRules(ctx.prisma, TEST_REDIS_URL)).version);
    await awayFromMinuteBoundary(20_000);
    const minute = minuteOf(Date.now());

    const sent: [string, boolean][] = [
      ['GET /v1/items', true],
      ['get /v1//items/?page=2', true], // the same route: the method in capitals, no query, no empty segments
      ['GET /v1/search', true],
      ['GET /v1/search', false], // the policy's own minute (1)
      ['POST /v1/orders', true], // the third route: the cap
      ['GET /v1/users/1', true], // past the cap: `other`
      ['GET /v1/users/2', true],
      ['GET /v1/items', false], // the tenant's minute (6) is spent
    ];
    for (const [endpoint, allowed] of sent) expect((await check({ tenant: tenant.slug, endpoint })).body.allowed, endpoint).toBe(allowed);
    // Refused (counted by the node, capped by its flush's script like the limit script's counts).
    expect((await check({ key: expired, endpoint: 'GET /v1/items' })).body.reason).toBe('key_expired');
    expect((await check({ key: expired, endpoint: 'DELETE /v1/users/3' })).body.reason).toBe('key_expired');
    await ctx.api.app.get(UsageRecorder).flush();

    const hash = await ctx.redis.hgetall(usageKey(tenant.id, minute));
    expect(sorted(routeCountsOf(hash))).toEqual(sorted([
      { route: 'GET /v1/items', result: 'allowed', reason: '', decisions: 2 },
      { route: 'GET /v1/items', result: 'denied', reason: 'minute', decisions: 1 },
      { route: 'GET /v1/items', result: 'refused', reason: 'key_expired', decisions: 1 },
      { route: 'GET /v1/search', result: 'allowed', reason: '', decisions: 1 },
      { route: 'GET /v1/search', result: 'denied', reason: 'search-minute', decisions: 1 },
      { route: 'POST /v1/orders', result: 'allowed', reason: '', decisions: 1 },
      { route: ROUTE_OTHER, result: 'allowed', reason: '', decisions: 2 },
      { route: ROUTE_OTHER, result: 'refused', reason: 'key_expired', decisions: 1 },
    ]));
    // Every decision is in a route, once: the routes add up to the decisions.
    const decisions = countsOf(hash).reduce((sum, c) => sum + c.decisions, 0);
    expect(routeCountsOf(hash).reduce((sum, c) => sum + c.decisions, 0)).toBe(decisions);
    expect(decisions).toBe(sent.length + 2);

    // Written as the rollup writes a minute, twice (a rollup repeated, or a live write and then the final one).
    const writer = new PostgresUsageWriter(ctx.prisma);
    for (let i = 0; i < 2; i += 1) await writer.writeMinute(minute, new Map([[tenant.id, countsOf(hash)]]), new Map(), new Map([[tenant.id, routeCountsOf(hash)]]));
    const rows = await ctx.prisma.usageRouteHour.findMany({ where: { tenantId: tenant.id } });
    expect(rows.reduce((sum, r) => sum + Number(r.decisions), 0)).toBe(decisions);

    const range = { from: new Date(minute * 1000).toISOString(), to: new Date(minute * 1000 + 60_000).toISOString() };
    const byVolume = await get('/v1/admin/usage/routes', ctx.session, { ...range, tenant: tenant.slug, order: 'decisions' });
    expect(byVolume.status).toBe(200);
    expect(byVolume.body.tenant.slug).toBe(tenant.slug);
    expect(byVolume.body.routesPerTenantMinute).toBe(3);
    expect(byVolume.body.items.map((r: { route: string; decisions: number }) => [r.route, r.decisions])).toEqual([
      ['GET /v1/items', 4],
      ['other', 3],
      ['GET /v1/search', 2],
      ['POST /v1/orders', 1],
    ]);
    const items = byVolume.body.items[0];
    expect(items).toEqual({ route: 'GET /v1/items', decisions: 4, allowed: 2, denied: 1, shadowDenied: 0, degraded: 0, refused: 1, denyRate: 0.25, limits: [{ name: 'minute', denied: 1, shadowDenied: 0 }] });

    // By 429 rate: only routes a limit denied, with at least `minDecisions`.
    const byRate = await get('/v1/admin/usage/routes', ctx.session, { ...range, tenant: tenant.slug, minDecisions: '2' });
    expect(byRate.body.items.map((r: { route: string; denyRate: number; limits: unknown }) => [r.route, r.denyRate, r.limits])).toEqual([
      ['GET /v1/search', 0.5, [{ name: 'search-minute', denied: 1, shadowDenied: 0 }]],
      ['GET /v1/items', 0.25, [{ name: 'minute', denied: 1, shadowDenied: 0 }]],
    ]);

    // The tenant's own routes: the same rows, its own only.
    const own = await get('/v1/tenant/usage/routes', await ctx.signIn('tenant', tenant.id), { ...range, order: 'decisions' });
    expect(own.status).toBe(200);
    expect(own.body.items).toEqual(byVolume.body.items);
    // Over every tenant, these routes are there with at least these counts (other tests count too).
    const all = await get('/v1/admin/usage/routes', ctx.session, { ...range, order: 'decisions', top: '100' });
    expect(all.body.tenant).toBeNull();
    expect(all.body.items.find((r: { route: string }) => r.route === 'POST /v1/orders')?.decisions).toBeGreaterThanOrEqual(1);
  });

  it("answers a range past the hours' retention, and one read by the day, from the days, in the tenant's zone", async () => {
    const { tenant } = await createTenant(ctx.prisma, [{ name: 'minute', windowS: 60, limit: 2 }]);
    await ctx.prisma.tenant.update({ where: { id: tenant.id }, data: { timeZone: 'Asia/Kolkata' } });
    await ctx.api.waitForRuleVersion((await publishRules(ctx.prisma, TEST_REDIS_URL)).version);
    await awayFromMinuteBoundary(20_000);
    const minute = minuteOf(Date.now());
    for (const endpoint of ['GET /v1/items', 'GET /v1/items', 'GET /v1/items', 'POST /v1/orders']) await check({ tenant: tenant.slug, endpoint });
    const hash = await ctx.redis.hgetall(usageKey(tenant.id, minute));
    const writer = new PostgresUsageWriter(ctx.prisma);
    const write = (at: number) => writer.writeMinute(at, new Map([[tenant.id, countsOf(hash)]]), new Map(), new Map([[tenant.id, routeCountsOf(hash)]]));
    // The same counts in this minute and in one 100 days ago (past the minutes' retention: its hour and day are moved by
    // the difference), each written twice; that hour then goes as the hours' retention (90 days) deletes it.
    const old = minute - 100 * 86_400;
    for (const at of [minute, minute, old, old]) await write(at);
    await ctx.prisma.usageRouteHour.deleteMany({ where: { tenantId: tenant.id, bucket: new Date(old * 1000) } });
    const want = [
      { route: 'GET /v1/items', decisions: 3, allowed: 2, denied: 1, shadowDenied: 0, degraded: 0, refused: 0, denyRate: 1 / 3, limits: [{ name: 'minute', denied: 1, shadowDenied: 0 }] },
      { route: 'POST /v1/orders', decisions: 1, allowed: 0, denied: 1, shadowDenied: 0, degraded: 0, refused: 0, denyRate: 1, limits: [{ name: 'minute', denied: 1, shadowDenied: 0 }] },
    ];
    const day = 86_400_000;

    // Two days around the old minute: read by the day (its hours are gone), the tenant's own and an operator's read.
    const past = { from: new Date(old * 1000 - day).toISOString(), to: new Date(old * 1000 + day).toISOString(), order: 'decisions' };
    const own = await get('/v1/tenant/usage/routes', await ctx.signIn('tenant', tenant.id), past);
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(own.body).toMatchObject({ step: 'day', items: want });
    expect((await get('/v1/admin/usage/routes', ctx.session, { ...past, tenant: tenant.slug })).body).toMatchObject({ step: 'day', items: want });

    // The last 20 days (longer than 14: by the day) hold this minute's counts once.
    const recent = { from: new Date(minute * 1000 - 20 * day).toISOString(), to: new Date(minute * 1000 + 60_000).toISOString(), order: 'decisions', tenant: tenant.slug };
    expect((await get('/v1/admin/usage/routes', ctx.session, recent)).body).toMatchObject({ step: 'day', items: want });
    // The days hold what the minutes hold: each minute's day, in Kolkata, once.
    const days = await ctx.prisma.usageRouteDay.findMany({ where: { tenantId: tenant.id } });
    expect(days.reduce((t, r) => t + Number(r.decisions), 0)).toBe(8);
    expect(new Set(days.map((r) => r.day.toISOString().slice(0, 10)))).toEqual(
      new Set([old, minute].map((at) => new Date(at * 1000).toLocaleDateString('en-CA', { timeZone: 'Asia/Kolkata' }))),
    );
  });

  it('refuses a malformed query with the field it names', async () => {
    for (const [query, status, code, field] of [
      [{ order: 'joy' }, 400, 'validation_failed', 'order'],
      [{ top: '101' }, 400, 'validation_failed', 'top'],
      [{ minDecisions: '0' }, 400, 'validation_failed', 'minDecisions'],
      [{ tenant: 'no-such-tenant' }, 404, 'not_found', 'tenant'],
    ] as const) {
      const r = await get('/v1/admin/usage/routes', ctx.session, query);
      expect(r.status, JSON.stringify(query)).toBe(status);
      expect(r.body.error, JSON.stringify(query)).toMatchObject({ code, field });
    }
  });
});
