import { beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../../../../../test/support/context';
import { createTenant } from '../../../../../test/support/fixtures';

describe('rule set versions API', () => {
  const ctx = useOperatorApi();
  let versions: number[];
  let fixture: Awaited<ReturnType<typeof createTenant>>;
  const get = async (path: string) => (await ctx.api.request('GET', `/v1/admin/rule-sets${path}`, { token: ctx.session })).body;

  beforeAll(async () => {
    fixture = await createTenant(ctx.prisma);
    // Keys in the rule set: a service key scoped to the tenant, and a tenant key.
    for (const body of [{ kind: 'service', name: 'rule sets', tenants: [fixture.tenant.id] }, { kind: 'tenant', name: 'rule sets', tenantId: fixture.tenant.id }]) {
      expect((await ctx.api.request('POST', '/v1/admin/keys', { token: ctx.session, body })).status).toBe(201);
    }
    const minute = fixture.plan.limits.find((l) => l.name === 'minute')!;
    versions = [];
    for (const limit of [11, 12]) {
      const r = await ctx.api.request('PATCH', `/v1/admin/plans/${fixture.plan.id}/limits/${minute.id}`, { token: ctx.session, body: { limit } });
      versions.push(r.body.ruleVersion);
    }
  });

  it('lists versions newest first with author, number of changes and a one-line summary, a page at a time', async () => {
    const first = await get('?pageSize=1');
    expect(first.items).toHaveLength(1);
    expect(first.items[0].version).toBeGreaterThanOrEqual(versions[1]!);
    const next = await get(`?pageSize=1&before=${first.nextBefore}`);
    expect(next.items[0].version).toBeLessThan(first.items[0].version);
    const line = `${fixture.plan.slug}: minute 11 → 12`;
    const listed = (await get(`?pageSize=1&before=${versions[1]! + 1}`)).items[0];
    expect(listed).toMatchObject({ version: versions[1], author: `user:${ctx.operatorEmail}`, changes: 1, summary: line });
    const mine = await get(`/${versions[1]}`);
    expect(mine).toMatchObject({ version: versions[1], author: listed.author, summary: line, changes: [{ kind: 'plan', text: line }] });
    expect(mine.compiled.tenants[fixture.tenant.slug].limits[0].limit).toBe(12);
    // What it was compiled from: the plan's own limit, which says the change was the plan's and not an override.
    const plan = mine.source.plans.find((p: { id: string }) => p.id === fixture.plan.id);
    expect(plan.limits).toContainEqual(expect.objectContaining({ name: 'minute', limit: 12 }));
    expect(mine.source.tenants).toContainEqual(expect.objectContaining({ id: fixture.tenant.id, planId: fixture.plan.id, overrides: [] }));
  });

  it('counts a version\'s changes alike in the list, in the version and in the diff from the version before', async () => {
    const page = await get('?pageSize=25');
    for (const item of page.items as { version: number; changes: number; summary: string }[]) {
      const own = await get(`/${item.version}`);
      expect(own.changes, `v${item.version}`).toHaveLength(item.changes);
      expect(own.summary).toBe(item.summary);
      if (item.version > 1) expect((await get(`/diff?from=${item.version - 1}&to=${item.version}`)).changes).toEqual(own.changes);
    }
  });

  it('diffs two versions in either direction, one line per change', async () => {
    const slug = fixture.plan.slug;
    expect(await get(`/diff?from=${versions[0]}&to=${versions[1]}`)).toEqual({
      from: versions[0],
      to: versions[1],
      summary: `${slug}: minute 11 → 12`,
      changes: [{ kind: 'plan', text: `${slug}: minute 11 → 12` }],
    });
    expect((await get(`/diff?from=${versions[1]}&to=${versions[0]}`)).changes).toEqual([{ kind: 'plan', text: `${slug}: minute 12 → 11` }]);
    expect((await get(`/diff?from=${versions[1]}&to=${versions[1]}`)).changes).toEqual([]);
  });

  it('shows no key hash in any answer: keys are counted and named by id and prefix', async () => {
    const hashes = (await ctx.prisma.apiKey.findMany({ select: { hash: true } })).map((k) => k.hash);
    expect(hashes.length).toBeGreaterThanOrEqual(2);
    const current = (await get('/current')).version as number;
    const paths = [
      '',
      '?pageSize=200',
      '/current',
      `/diff?from=1&to=${current}`,
      `/diff?from=${current}&to=1`,
      ...Array.from({ length: Math.min(current, 30) }, (_, i) => `/${current - i}`),
      `/${versions[0]}/restore-preview`,
    ];
    for (const path of paths) {
      const res = await fetch(`${ctx.api.url}/v1/admin/rule-sets${path}`, { headers: { authorization: `Bearer ${ctx.session}` } });
      const raw = await res.text();
      expect(res.status, path).toBeLessThan(500);
      for (const hash of hashes) expect(raw.includes(hash), `${path} holds a key hash`).toBe(false);
      expect(raw, path).not.toMatch(/"hash"/);
    }
    // The keys are there all the same, by id and prefix.
    const compiled = (await get(`/${current}`)).compiled;
    expect(compiled.serviceKeys.length).toBeGreaterThan(0);
    expect(Object.keys(compiled.serviceKeys[0]).sort()).toEqual(['expiresAt', 'id', 'prefix', 'tenantIds']);
  });

  it('publishes no version for a change that leaves the rules as they were: display names and self-service caps', async () => {
    const author = `user:${ctx.operatorEmail}`;
    const mine = () => ctx.prisma.ruleSetVersion.count({ where: { author } });
    const published = await mine();
    const inForce = (await get('/current')).version as number;
    const writes = [
      ['PATCH', `/v1/admin/tenants/${fixture.tenant.id}`, { name: 'Renamed tenant' }],
      ['PATCH', `/v1/admin/tenants/${fixture.tenant.id}`, { caps: { webhookEndpoints: 3, alertRules: 7 } }],
      ['PATCH', `/v1/admin/plans/${fixture.plan.id}`, { name: 'Renamed plan' }],
    ] as const;
    for (const [method, path, body] of writes) {
      const r = await ctx.api.request(method, path, { token: ctx.session, body });
      expect(r.status, path).toBe(200);
      // The version in force carries it: this one or one another test published meanwhile.
      expect(r.body.ruleVersion).toBeGreaterThanOrEqual(inForce);
    }
    expect(await mine()).toBe(published);
    // Each is audited all the same, naming no version.
    const audited = await ctx.prisma.auditLog.findMany({ where: { actor: author, entityId: { in: [fixture.tenant.id, fixture.plan.id] }, action: { in: ['tenant.updated', 'plan.updated'] } } });
    expect(audited).toHaveLength(3);
    expect(audited.map((a) => a.ruleVersion)).toEqual([null, null, null]);

    // A change of the rules publishes, and its changes say nothing of the names.
    const suspended = await ctx.api.request('PATCH', `/v1/admin/tenants/${fixture.tenant.id}`, { token: ctx.session, body: { status: 'suspended' } });
    expect(await mine()).toBe(published + 1);
    expect((await get(`/${suspended.body.ruleVersion}`)).changes).toEqual([{ kind: 'tenant', text: `tenant ${fixture.tenant.slug} suspended` }]);
    await ctx.api.request('PATCH', `/v1/admin/tenants/${fixture.tenant.id}`, { token: ctx.session, body: { status: 'active' } });
  });

  it('answers 404 for an unknown or malformed version and 400 for a bad diff query', async () => {
    expect((await ctx.api.request('GET', '/v1/admin/rule-sets/999999999', { token: ctx.session })).status).toBe(404);
    expect((await ctx.api.request('GET', '/v1/admin/rule-sets/abc', { token: ctx.session })).status).toBe(404);
    expect((await ctx.api.request('GET', `/v1/admin/rule-sets/diff?from=${versions[0]}&to=999999999`, { token: ctx.session })).status).toBe(404);
    const bad = await ctx.api.request('GET', '/v1/admin/rule-sets/diff?from=x&to=1', { token: ctx.session });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('from');
  });

  it('answers numbers past the highest version a version can have (a Postgres integer) as unknown, not as a 500', async () => {
    for (const version of ['2147483648', '9999999999']) {
      for (const [method, path] of [
        ['GET', `/v1/admin/rule-sets/${version}`],
        ['GET', `/v1/admin/rule-sets/${version}/restore-preview`],
        ['POST', `/v1/admin/rule-sets/${version}/restore`],
      ]) {
        expect((await ctx.api.request(method!, path!, { token: ctx.session })).body, path).toEqual({ error: { code: 'not_found', message: 'not found' } });
      }
      for (const [query, field] of [[`diff?from=1&to=${version}`, 'to'], [`diff?from=${version}&to=1`, 'from'], [`?before=${version}`, 'before']]) {
        const r = await ctx.api.request('GET', `/v1/admin/rule-sets${query!.startsWith('?') ? '' : '/'}${query}`, { token: ctx.session });
        expect(r.status, query).toBe(400);
        expect(r.body.error).toMatchObject({ code: 'validation_failed', field });
      }
    }
  });

  it('refuses every rule set route to callers that are not operators', async () => {
    const tenantUser = await ctx.signIn('tenant', fixture.tenant.id);
    for (const path of ['', '/current', `/${versions[0]}`, `/diff?from=1&to=2`, `/${versions[0]}/restore-preview`]) {
      expect((await ctx.api.request('GET', `/v1/admin/rule-sets${path}`, { token: tenantUser })).status, path).toBe(403);
      expect((await ctx.api.request('GET', `/v1/admin/rule-sets${path}`)).status, path).toBe(401);
    }
    expect((await ctx.api.request('POST', `/v1/admin/rule-sets/${versions[0]}/restore`, { token: tenantUser })).status).toBe(403);
  });
});
