import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_METRICS_TOKEN, TEST_REDIS_URL } from '../../../../../test/support/env';
import { awayFromMinuteBoundary, createServiceKey, createTenant, createUser, publishRules, waitFor } from '../../../../../test/support/fixtures';
import { startApi, type TestApi } from '../../../../../test/support/api';
import { useOperatorApi } from '../../../../../test/support/context';

describe('plans admin API', () => {
  // RULES_POLL_MS high on both nodes: the swap must come from the announcement, not from polling.
  const ctx = useOperatorApi({ RULES_POLL_MS: '60000' });
  let nodeB: TestApi;
  let serviceKey: string;
  let fixture: Awaited<ReturnType<typeof createTenant>>;

  beforeAll(async () => {
    nodeB = await startApi({ RULES_POLL_MS: '60000' });
    fixture = await createTenant(ctx.prisma);
    serviceKey = await createServiceKey(ctx.prisma);
    const ruleSet = await publishRules(ctx.prisma, TEST_REDIS_URL);
    for (const node of [ctx.api, nodeB]) await waitFor(async () => (await node.request('GET', '/health')).body.ruleVersion >= ruleSet.version);
  });
  afterAll(async () => {
    await nodeB?.close();
  });

  const minuteLimit = () => fixture.plan.limits.find((l) => l.name === 'minute')!;
  const patchMinute = (limit: unknown, token = ctx.session) =>
    ctx.api.request('PATCH', `/v1/admin/plans/${fixture.plan.id}/limits/${minuteLimit().id}`, { token, body: { limit } });
  const check = (node: TestApi, subject: string) =>
    node.request('POST', '/v1/check', { token: serviceKey, body: { tenant: fixture.tenant.slug, endpoint: 'GET /x', subject } });

  describe('happy', () => {
    it('lists plans with their limits and tenant counts', async () => {
      const r = await ctx.api.request('GET', `/v1/admin/plans?q=${fixture.plan.slug.toUpperCase()}`, { token: ctx.session });
      expect(r.status).toBe(200);
      expect(r.body.items).toHaveLength(1);
      const plan = r.body.items[0];
      expect(plan).toMatchObject({ id: fixture.plan.id, slug: fixture.plan.slug, tenantCount: 1 });
      expect(plan.limits.map((l: { name: string; limit: number }) => [l.name, l.limit])).toEqual([['minute', 10], ['daily', 1000]]);
    });

    it('takes the filter q literally: %, _ and \\ match only themselves', async () => {
      const suffix = Date.now().toString(36);
      const names = [`a%${suffix}`, `a_${suffix}`, `a\\${suffix}`, `ab${suffix}`];
      for (const [i, name] of names.entries()) await ctx.prisma.plan.create({ data: { slug: `like-${suffix}-${i}`, name } });
      for (const name of names) {
        const r = await ctx.api.request('GET', `/v1/admin/plans?q=${encodeURIComponent(name)}`, { token: ctx.session });
        expect(r.status).toBe(200);
        expect(r.body.items.map((p: { name: string }) => p.name), name).toEqual([name]);
      }
    });

    it('pages through every plan by slug with nextCursor, and refuses a bad page size', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { status: number; body: { items: { slug: string }[]; nextCursor: string | null } } = await ctx.api.request('GET', `/v1/admin/plans?pageSize=7${cursor ? `&cursor=${cursor}` : ''}`, { token: ctx.session });
        expect(page.status).toBe(200);
        expect(page.body.items.length).toBeLessThanOrEqual(7);
        seen.push(...page.body.items.map((p) => p.slug));
        cursor = page.body.nextCursor;
      } while (cursor);
      expect(seen).toEqual([...seen].sort());
      expect(new Set(seen).size).toBe(await ctx.prisma.plan.count());
      for (const bad of ['pageSize=0', 'pageSize=201', 'limit=7', 'cursor=NOT%20A%20SLUG', 'extra=1']) {
        expect((await ctx.api.request('GET', `/v1/admin/plans?${bad}`, { token: ctx.session })).status).toBe(400);
      }
    });

    it('a limit change is a new rule set version, audited, and enforced by every node within a second without restart', async () => {
      await awayFromMinuteBoundary();
      for (let i = 0; i < 10; i += 1) expect((await check(ctx.api, 'frank')).body.allowed).toBe(true);
      expect((await check(nodeB, 'frank')).body.allowed).toBe(false);

      const before = (await ctx.api.request('GET', '/v1/admin/rule-sets/current', { token: ctx.session })).body.version;
      const r = await patchMinute(20);
      expect(r.status).toBe(200);
      expect(r.body.limit).toMatchObject({ name: 'minute', limit: 20 });
      expect(r.body.ruleVersion).toBeGreaterThan(before);
      const changedAt = Date.now();

      // The contract is "within a second" of the change being committed (BENCHMARKS.md measures the latency).
      for (const node of [ctx.api, nodeB]) {
        await waitFor(async () => (await check(node, 'frank')).body.allowed === true, 1_000 - (Date.now() - changedAt), 10);
      }
      const audit = await ctx.prisma.auditLog.findFirst({ where: { entityId: minuteLimit().id }, orderBy: { id: 'desc' } });
      expect(audit).toMatchObject({ action: 'plan_limit.updated', before: expect.objectContaining({ limit: 10 }), after: expect.objectContaining({ limit: 20 }) });
      expect(audit!.actor).toMatch(/^user:/);
      const version = await ctx.prisma.ruleSetVersion.findUnique({ where: { version: r.body.ruleVersion } });
      // Other files' fixtures, written straight to the database, may come into the same version: this change is one of its lines.
      expect(version!.diff).toContainEqual({ kind: 'plan', text: `${fixture.plan.slug}: minute 10 → 20` });
    });
  });

  describe('errors', () => {
    it.each([
      ['zero', 0],
      ['negative', -5],
      ['fractional', 2.5],
      ['huge', 10_000_000_000],
      ['a string', 'ten'],
    ])('refuses a %s limit with 400 and leaves the version in force', async (_label, limit) => {
      const before = (await ctx.api.request('GET', '/v1/admin/rule-sets/current', { token: ctx.session })).body.version;
      const r = await patchMinute(limit);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_failed', field: 'limit' });
      expect((await ctx.api.request('GET', '/v1/admin/rule-sets/current', { token: ctx.session })).body.version).toBe(before);
    });

    it('refuses a change whose rule set does not compile, keeps the version in force, audits and counts the refusal', async () => {
      const logged = await createTenant(ctx.prisma, [{ name: 'minute', windowS: 60, limit: 100 }]);
      const limit = logged.plan.limits[0]!;
      await ctx.prisma.planLimit.update({ where: { id: limit.id }, data: { algorithm: 'sliding_log' } });
      const { version } = await publishRules(ctx.prisma, TEST_REDIS_URL);
      await waitFor(async () => (await ctx.api.request('GET', '/health')).body.ruleVersion >= version);
      const counted = async () => Number(/^tollgate_rule_set_rejections_total (\d+)/m.exec((await ctx.api.request('GET', '/metrics', { token: TEST_METRICS_TOKEN })).body)?.[1] ?? 0);
      const rejectionsBefore = await counted();

      // A sliding log stores one member per unit: the engine refuses more than 10,000 per window.
      const r = await ctx.api.request('PATCH', `/v1/admin/plans/${logged.plan.id}/limits/${limit.id}`, { token: ctx.session, body: { limit: 20_000 } });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('rule_set_invalid');
      expect(r.body.error.message).toMatch(/10,?000|sliding/i);
      expect((await ctx.api.request('GET', '/v1/admin/rule-sets/current', { token: ctx.session })).body.version).toBe(version);
      expect((await ctx.prisma.planLimit.findUnique({ where: { id: limit.id } }))!.limit).toBe(100);
      expect(await ctx.prisma.auditLog.count({ where: { action: 'plan_limit.updated', entityId: limit.id } })).toBe(0);
      const rejection = await ctx.prisma.auditLog.findFirst({ where: { action: 'rule_set.rejected' }, orderBy: { id: 'desc' } });
      expect(rejection!.actor).toMatch(/^user:/);
      expect(await counted()).toBe(rejectionsBefore + 1);
      const check = await nodeB.request('POST', '/v1/check', { token: serviceKey, body: { tenant: logged.tenant.slug, endpoint: 'GET /x' } });
      expect(check.body.limits[0].limit).toBe(100);
    });

    it('answers 404 for an unknown or malformed id', async () => {
      const unknown = await ctx.api.request('PATCH', `/v1/admin/plans/${fixture.plan.id}/limits/00000000-0000-4000-8000-000000000000`, {
        token: ctx.session,
        body: { limit: 5 },
      });
      expect(unknown.status).toBe(404);
      const malformed = await ctx.api.request('PATCH', `/v1/admin/plans/nope/limits/nope`, { token: ctx.session, body: { limit: 5 } });
      expect(malformed.status).toBe(404);
      expect(malformed.body.error.code).toBe('not_found');
    });
  });

  describe('security', () => {
    it('answers 401 to anonymous callers and 403 to service keys', async () => {
      expect((await ctx.api.request('GET', '/v1/admin/plans')).status).toBe(401);
      expect((await patchMinute(30, '')).status).toBe(401);
      expect((await ctx.api.request('GET', '/v1/admin/plans', { token: serviceKey })).status).toBe(403);
      expect((await patchMinute(30, serviceKey)).status).toBe(403);
      expect((await ctx.api.request('GET', '/v1/admin/tenants', { token: 'tg_sess_forged' })).status).toBe(401);
    });

    it('refuses a tenant user\'s ctx.session on operator routes', async () => {
      const tenantUser = await createUser(ctx.prisma, 'tenant', fixture.tenant.id);
      const token = (await ctx.api.request('POST', '/v1/auth/login', { body: tenantUser })).body.token;
      expect((await ctx.api.request('GET', '/v1/admin/plans', { token })).status).toBe(403);
    });
  });
});

describe('plan lifecycle', () => {
  const ctx = useOperatorApi();
  let key: string;

  beforeAll(async () => {
    key = await createServiceKey(ctx.prisma);
  });

  const call = (method: string, path: string, body?: unknown) => ctx.api.request(method, `/v1/admin/plans${path}`, { token: ctx.session, body });

  it('creates a plan with limits of any algorithm, changes and removes limits, and deletes it once nobody is on it', async () => {
    const slug = `life-${Date.now().toString(36)}`;
    const created = await call('POST', '', {
      slug,
      name: 'Lifecycle',
      limits: [
        { name: 'second', windowS: 1, limit: 5, algorithm: 'token_bucket', burst: 10 },
        { name: 'daily', windowS: 86_400, limit: 1000 },
      ],
    });
    expect(created.status).toBe(201);
    expect(created.body.plan).toMatchObject({ slug, tenantCount: 0 });
    expect(created.body.plan.limits.map((l: { name: string; algorithm: string; burst: number | null }) => [l.name, l.algorithm, l.burst])).toEqual([
      ['second', 'token_bucket', 10],
      ['daily', 'fixed_window', null],
    ]);
    const planId: string = created.body.plan.id;
    expect((await call('POST', '', { slug, name: 'Again' })).status).toBe(409);

    const added = await call('POST', `/${planId}/limits`, { name: 'minute', windowS: 60, limit: 100, algorithm: 'gcra' });
    expect(added.status).toBe(201);
    expect(added.body.ruleVersion).toBeGreaterThan(created.body.ruleVersion);
    expect((await call('POST', `/${planId}/limits`, { name: 'minute', windowS: 60, limit: 5 })).status).toBe(409);
    const changed = await call('PATCH', `/${planId}/limits/${added.body.limit.id}`, { algorithm: 'sliding_window', windowS: 120 });
    expect(changed.body.limit).toMatchObject({ algorithm: 'sliding_window', windowS: 120, limit: 100 });
    expect((await call('DELETE', `/${planId}/limits/${added.body.limit.id}`)).status).toBe(200);
    expect((await call('PATCH', `/${planId}`, { name: 'Lifecycle 2' })).body.plan.name).toBe('Lifecycle 2');

    // A tenant on it: the plan's limits are enforced with their algorithms; the plan cannot be deleted.
    const tenant = await ctx.prisma.tenant.create({ data: { slug: `${slug}-t`, name: 'T', planId } });
    const { version } = await publishRules(ctx.prisma, TEST_REDIS_URL);
    await waitFor(async () => (await ctx.api.request('GET', '/health')).body.ruleVersion >= version);
    const check = await ctx.api.request('POST', '/v1/check', { token: key, body: { tenant: tenant.slug, endpoint: 'GET /x' } });
    expect(check.body.limits.map((l: { name: string; limit: number }) => [l.name, l.limit])).toEqual([['second', 10], ['daily', 1000]]);
    const refused = await call('DELETE', `/${planId}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/1 tenant/);
    await ctx.prisma.tenant.delete({ where: { id: tenant.id } });
    expect((await call('DELETE', `/${planId}`)).status).toBe(200);
    expect((await call('GET', `/${planId}`)).status).toBe(404);
    const actions = (await ctx.prisma.auditLog.findMany({ where: { entityId: planId }, select: { action: true } })).map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(['plan.created', 'plan.updated', 'plan.deleted']));
  });

  it('keeps the calendar explicit: a calendar limit takes the calendar\'s window, a patch moves a limit on or off it', async () => {
    const slug = `cal-${Date.now().toString(36)}`;
    const created = await call('POST', '', { slug, name: 'Calendar', limits: [{ name: 'daily', limit: 100, calendar: 'day' }, { name: 'rolling', windowS: 86_400, limit: 100 }] });
    expect(created.status).toBe(201);
    expect(created.body.plan.limits.map((l: { name: string; windowS: number; calendar: string | null }) => [l.name, l.windowS, l.calendar])).toEqual([
      ['daily', 86_400, 'day'],
      ['rolling', 86_400, null],
    ]);
    const planId: string = created.body.plan.id;
    const rolling = `/${planId}/limits/${created.body.plan.limits[1].id}`;
    expect((await call('PATCH', rolling, { calendar: 'month' })).body.limit).toMatchObject({ windowS: 31 * 86_400, calendar: 'month' });
    const refused = await call('PATCH', rolling, { algorithm: 'gcra' });
    expect([refused.status, refused.body.error.code, refused.body.error.field]).toEqual([400, 'validation_failed', 'calendar']);
    expect((await call('PATCH', rolling, { algorithm: 'gcra', calendar: null, windowS: 3_600 })).body.limit).toMatchObject({ algorithm: 'gcra', windowS: 3_600, calendar: null });
    expect((await call('DELETE', `/${planId}`)).status).toBe(200);
  });

  it.each([
    ['a bad slug', { slug: 'Not A Slug', name: 'x' }, 'slug'],
    ['an unknown algorithm', { slug: 'ok-slug', name: 'x', limits: [{ name: 'm', windowS: 60, limit: 5, algorithm: 'magic' }] }, 'limits.0.algorithm'],
    ['a zero window', { slug: 'ok-slug', name: 'x', limits: [{ name: 'm', windowS: 0, limit: 5 }] }, 'limits.0.windowS'],
    ['a huge limit', { slug: 'ok-slug', name: 'x', limits: [{ name: 'm', windowS: 60, limit: 2e9 }] }, 'limits.0.limit'],
    ['duplicate limit names', { slug: 'ok-slug', name: 'x', limits: [{ name: 'm', windowS: 60, limit: 5 }, { name: 'm', windowS: 1, limit: 1 }] }, 'limits'],
    ['an unknown calendar', { slug: 'ok-slug', name: 'x', limits: [{ name: 'm', limit: 5, calendar: 'week' }] }, 'limits.0.calendar'],
    ['a calendar on a bucket', { slug: 'ok-slug', name: 'x', limits: [{ name: 'm', limit: 5, algorithm: 'token_bucket', calendar: 'day' }] }, 'limits.0.calendar'],
  ])('refuses %s with 400 naming the field, and writes no version', async (_label, input, field) => {
    const before = (await ctx.api.request('GET', '/v1/admin/rule-sets/current', { token: ctx.session })).body.version;
    const r = await call('POST', '', input);
    expect(r.status).toBe(400);
    expect(r.body.error.field).toBe(field);
    expect((await ctx.api.request('GET', '/v1/admin/rule-sets/current', { token: ctx.session })).body.version).toBe(before);
  });
});
