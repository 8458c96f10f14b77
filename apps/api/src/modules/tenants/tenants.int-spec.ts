import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../../../../../test/support/context';
import { TEST_REDIS_URL } from '../../../../../test/support/env';
import { createServiceKey, createTenant, createTenantKey, createUser, publishRules, waitFor } from '../../../../../test/support/fixtures';

describe('GET /v1/admin/tenants', () => {
  const ctx = useOperatorApi();
  beforeAll(async () => {
    await Promise.all([createTenant(ctx.prisma), createTenant(ctx.prisma), createTenant(ctx.prisma)]);
  });

  it('pages through every tenant in slug order with nextCursor', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r: { status: number; body: { items: { slug: string; plan: { slug: string } }[]; nextCursor: string | null } } =
        await ctx.api.request('GET', `/v1/admin/tenants?pageSize=2${cursor ? `&cursor=${cursor}` : ''}`, { token: ctx.session });
      expect(r.status).toBe(200);
      expect(r.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.items.map((t) => t.slug));
      cursor = r.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...seen].sort());
    expect(seen.length).toBe(await ctx.prisma.tenant.count());
  });

  it('finds tenants by part of their slug or name (q), any case, taken literally, with the other filters', async () => {
    const { tenant, plan } = await createTenant(ctx.prisma);
    await ctx.prisma.tenant.update({ where: { id: tenant.id }, data: { name: `Globex 100%_${tenant.slug}` } });
    // A decoy on the same plan that `%` and `_` would match as wildcards; each query names the plan, so that tenants
    // earlier runs left in the database do not count.
    await ctx.prisma.tenant.create({ data: { slug: `decoy-${randomUUID().slice(0, 8)}`, name: 'Globex 1000x decoy', planId: plan.id } });
    const slugs = async (query: string) => {
      const r = await ctx.api.request('GET', `/v1/admin/tenants?${query}`, { token: ctx.session });
      expect(r.status).toBe(200);
      return r.body.items.map((t: { slug: string }) => t.slug);
    };
    expect(await slugs(`q=${tenant.slug.slice(-8).toUpperCase()}`)).toEqual([tenant.slug]);
    expect(await slugs(`q=${encodeURIComponent('globex 100%_')}&plan=${plan.id}`)).toEqual([tenant.slug]);
    expect(await slugs(`q=${encodeURIComponent('%')}&plan=${plan.id}`)).toEqual([tenant.slug]);
    expect(await slugs(`q=${tenant.slug}&status=suspended`)).toEqual([]);
    expect(await slugs(`q=_&plan=${plan.id}`)).toEqual([tenant.slug]);
    expect(await slugs(`q=${encodeURIComponent('0%_t')}&plan=${plan.id}`)).toEqual([tenant.slug]);
    for (const bad of ['', '%0A', 'x'.repeat(101)]) {
      const r = await ctx.api.request('GET', `/v1/admin/tenants?q=${bad}`, { token: ctx.session });
      expect(r.status, bad).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_failed', field: 'q' });
    }
  });

  it('refuses a bad page size with 400 naming the field', async () => {
    const r = await ctx.api.request('GET', '/v1/admin/tenants?pageSize=0', { token: ctx.session });
    expect(r.status).toBe(400);
    expect(r.body.error.field).toBe('pageSize');
  });

  it('refuses the page size\'s old name, `limit`, with a 400 that names the new one', async () => {
    const r = await ctx.api.request('GET', '/v1/admin/tenants?limit=2', { token: ctx.session });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'validation_failed', field: 'limit' });
    expect(r.body.error.message).toContain('pageSize');
  });

  it('answers 401 without a session', async () => {
    expect((await ctx.api.request('GET', '/v1/admin/tenants')).status).toBe(401);
  });
});

describe('tenant lifecycle', () => {
  const ctx = useOperatorApi();
  let key: string;
  beforeAll(async () => {
    key = await createServiceKey(ctx.prisma);
  });

  const call = (method: string, path: string, body?: unknown) => ctx.api.request(method, `/v1/admin/tenants${path}`, { token: ctx.session, body });
  const check = (tenant: string) => ctx.api.request('POST', '/v1/check', { token: key, body: { tenant, endpoint: 'GET /x' } });

  it('creates a tenant that is enforced at once, moves it to another plan, suspends and resumes it', async () => {
    const { plan: small } = await createTenant(ctx.prisma, [{ name: 'minute', windowS: 60, limit: 3 }]);
    const { plan: large } = await createTenant(ctx.prisma, [{ name: 'minute', windowS: 60, limit: 300 }]);
    const slug = `new-${Date.now().toString(36)}`;
    const created = await call('POST', '', { slug, name: 'New Co', planId: small.id, timeZone: 'Asia/Tokyo' });
    expect(created.status).toBe(201);
    expect(created.body.tenant).toMatchObject({ slug, status: 'active', timeZone: 'Asia/Tokyo', plan: { id: small.id } });
    expect((await check(slug)).body.limits[0].limit).toBe(3); // the answer came after the version was live on this node
    expect((await call('POST', '', { slug, name: 'Twice', planId: small.id })).status).toBe(409);

    const id: string = created.body.tenant.id;
    expect((await call('PATCH', `/${id}`, { planId: large.id })).body.tenant.plan.id).toBe(large.id);
    expect((await check(slug)).body.limits[0].limit).toBe(300);
    await call('PATCH', `/${id}`, { status: 'suspended' });
    const suspended = await check(slug);
    expect(suspended.body).toMatchObject({ allowed: false, reason: 'tenant_suspended' });
    await call('PATCH', `/${id}`, { status: 'active' });
    expect((await check(slug)).body.allowed).toBe(true);
    expect((await call('GET', `?plan=${large.id}&status=active`)).body.items.map((t: { slug: string }) => t.slug)).toContain(slug);
    expect((await call('GET', `/${id}`)).body.slug).toBe(slug);
  });

  it.each([
    ['an unknown time zone', { timeZone: 'Mars/Olympus' }, 'timeZone'],
    ['an unknown plan', { planId: '00000000-0000-4000-8000-000000000000' }, 'planId'],
    ['a bad status', { status: 'deleted' }, 'status'],
    ['an empty change', {}, undefined],
  ])('refuses %s with 400', async (_label, patch, field) => {
    const { tenant } = await createTenant(ctx.prisma);
    const r = await call('PATCH', `/${tenant.id}`, patch);
    expect(r.status).toBe(400);
    if (field) expect(r.body.error.field).toBe(field);
  });

  it('takes IANA zone names only: an offset, another spelling or an abbreviation is a 400 on timeZone, on create and on change', async () => {
    const { plan, tenant } = await createTenant(ctx.prisma);
    for (const timeZone of ['+05:30', 'utc', 'europe/berlin', 'IST', 'Etc/GMT+5', 'US/Eastern']) {
      const created = await call('POST', '', { slug: `tz-${Date.now().toString(36)}`, name: 'Zone', planId: plan.id, timeZone });
      expect(created.status, timeZone).toBe(400);
      expect(created.body.error, timeZone).toMatchObject({ code: 'validation_failed', field: 'timeZone' });
      expect((await call('PATCH', `/${tenant.id}`, { timeZone })).body.error, timeZone).toMatchObject({ code: 'validation_failed', field: 'timeZone' });
    }
    for (const timeZone of ['UTC', 'Asia/Kolkata', 'Asia/Calcutta', 'America/Argentina/Buenos_Aires']) {
      const r = await call('PATCH', `/${tenant.id}`, { timeZone });
      expect(r.status, timeZone).toBe(200);
      expect(r.body.tenant.timeZone).toBe(timeZone);
    }
  });

  it('answers 404 for an unknown tenant', async () => {
    expect((await call('GET', '/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await call('PATCH', '/00000000-0000-4000-8000-000000000000', { name: 'x' })).status).toBe(404);
    expect((await call('DELETE', '/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('deletes a tenant with its keys, users and overrides: from that version on it checks nothing, audited with counts', async () => {
    const { tenant } = await createTenant(ctx.prisma);
    const tenantKey = await createTenantKey(ctx.prisma, tenant.id);
    await createUser(ctx.prisma, 'tenant', tenant.id);
    await ctx.prisma.tenantLimitOverride.create({ data: { tenantId: tenant.id, name: 'minute', windowS: 60, limit: 5 } });
    await publishRules(ctx.prisma, TEST_REDIS_URL);
    await waitFor(async () => (await check(tenant.slug)).status === 200);
    const r = await call('DELETE', `/${tenant.id}`);
    expect(r.status).toBe(200);
    expect(r.body.ruleVersion).toBeGreaterThan(0);
    expect((await check(tenant.slug)).status).toBe(404);
    const byKey = await ctx.api.request('POST', '/v1/check', { token: key, body: { key: tenantKey.key, endpoint: 'GET /x' } });
    expect(byKey.body).toMatchObject({ allowed: false, reason: 'key_invalid' });
    expect(await ctx.prisma.apiKey.count({ where: { tenantId: tenant.id } })).toBe(0);
    expect(await ctx.prisma.user.count({ where: { tenantId: tenant.id } })).toBe(0);
    const audit = await ctx.prisma.auditLog.findFirst({ where: { entityId: tenant.id, action: 'tenant.deleted' } });
    expect(audit?.before).toMatchObject({ slug: tenant.slug, deleted: { keys: 1, users: 1, policies: 0 } });
    expect((await call('DELETE', `/${tenant.id}`)).status).toBe(404);
  });
});

describe('tenant limit overrides', () => {
  const ctx = useOperatorApi();
  let key: string;
  beforeAll(async () => {
    key = await createServiceKey(ctx.prisma);
  });

  it('replaces a plan limit of the same name, adds a limit of a new name, and falls back to the plan when removed', async () => {
    const { tenant } = await createTenant(ctx.prisma, [{ name: 'minute', windowS: 60, limit: 10 }]);
    const override = (name: string, body?: unknown) =>
      ctx.api.request(body === undefined ? 'DELETE' : 'PUT', `/v1/admin/tenants/${tenant.id}/overrides/${name}`, { token: ctx.session, body });
    const limits = async () =>
      (await ctx.api.request('POST', '/v1/check', { token: key, body: { tenant: tenant.slug, endpoint: 'GET /x', subject: 'o' } })).body.limits.map(
        (l: { name: string; limit: number }) => `${l.name}=${l.limit}`,
      );

    const replaced = await override('minute', { windowS: 60, limit: 500, algorithm: 'sliding_window' });
    expect(replaced.status).toBe(200);
    expect(replaced.body.override).toMatchObject({ name: 'minute', limit: 500, algorithm: 'sliding_window', burst: null });
    expect(await limits()).toEqual(['minute=500']);
    await override('second', { windowS: 1, limit: 5, algorithm: 'token_bucket', burst: 8 });
    expect(await limits()).toEqual(['second=8', 'minute=500']);
    expect((await ctx.api.request('GET', `/v1/admin/tenants/${tenant.id}`, { token: ctx.session })).body.overrides.map((o: { name: string }) => o.name)).toEqual(['minute', 'second']);
    expect((await override('minute')).status).toBe(200);
    expect(await limits()).toEqual(['second=8', 'minute=10']);
    expect((await override('minute')).status).toBe(404);
  });

  it('refuses a bad override with 400, and one the engine cannot run with rule_set_invalid', async () => {
    const { tenant } = await createTenant(ctx.prisma);
    const put = (body: unknown, name = 'minute') => ctx.api.request('PUT', `/v1/admin/tenants/${tenant.id}/overrides/${name}`, { token: ctx.session, body });
    expect((await put({ windowS: 0, limit: 5 })).body.error.field).toBe('windowS');
    expect((await put({ windowS: 60, limit: 5 }, 'Bad Name')).status).toBe(400);
    const tooBig = await put({ windowS: 60, limit: 50_000, algorithm: 'sliding_log' });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.error.code).toBe('rule_set_invalid');
  });

  it('takes a calendar for an override, reset at the tenant\'s midnight, and refuses an unknown one with 400 on calendar', async () => {
    const { tenant } = await createTenant(ctx.prisma, [{ name: 'minute', windowS: 60, limit: 10 }]);
    await ctx.prisma.tenant.update({ where: { id: tenant.id }, data: { timeZone: 'Asia/Tokyo' } });
    const put = (body: unknown) => ctx.api.request('PUT', `/v1/admin/tenants/${tenant.id}/overrides/daily`, { token: ctx.session, body });
    const set = await put({ limit: 50, calendar: 'day' });
    expect(set.status).toBe(200);
    expect(set.body.override).toEqual({ name: 'daily', windowS: 86_400, limit: 50, algorithm: 'fixed_window', burst: null, calendar: 'day' });
    const version = set.body.ruleVersion;
    await waitFor(async () => (await ctx.api.request('GET', '/health')).body.ruleVersion >= version);
    const checked = await ctx.api.request('POST', '/v1/check', { token: key, body: { tenant: tenant.slug, endpoint: 'GET /x' } });
    const tokyo = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Tokyo', hour: 'numeric', minute: 'numeric', second: 'numeric', hourCycle: 'h23' }).format(new Date());
    const [h, m, sec] = tokyo.split(':').map(Number) as [number, number, number];
    const daily = checked.body.limits.find((l: { name: string }) => l.name === 'daily');
    expect(Math.abs(daily.resetMs - ((24 - h) * 3600 - m * 60 - sec) * 1000)).toBeLessThan(5_000);
    for (const [body, field] of [[{ limit: 5, calendar: 'week' }, 'calendar'], [{ limit: 5, calendar: 'day', algorithm: 'gcra' }, 'calendar'], [{ windowS: 60, limit: 5, calendar: 'day' }, 'windowS']] as const) {
      const refused = await put(body);
      expect([refused.status, refused.body.error.code, refused.body.error.field]).toEqual([400, 'validation_failed', field]);
    }
  });
});
