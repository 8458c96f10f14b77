import { beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../../../../../test/support/context';
import { createServiceKey, createTenant, waitFor } from '../../../../../test/support/fixtures';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('endpoint policies admin API', () => {
  const ctx = useOperatorApi();
  let serviceKey: string;
  let fixture: Awaited<ReturnType<typeof createTenant>>;

  beforeAll(async () => {
    fixture = await createTenant(ctx.prisma);
    serviceKey = await createServiceKey(ctx.prisma);
  });

  const call = (method: string, path = '', body?: unknown, token = ctx.session) => ctx.api.request(method, `/v1/admin/policies${path}`, { token, body });
  const currentVersion = async () => (await ctx.api.request('GET', '/v1/admin/rule-sets/current', { token: ctx.session })).body.version as number;
  const version = async (v: number) => (await ctx.api.request('GET', `/v1/admin/rule-sets/${v}`, { token: ctx.session })).body;
  const newPolicy = (over: Record<string, unknown> = {}) => ({
    planId: fixture.plan.id,
    name: 'items',
    method: 'GET',
    pattern: '/v1/items/*',
    limits: [{ name: 'minute', windowS: 60, limit: 100 }],
    ...over,
  });

  describe('happy', () => {
    it('creates, reads, changes and deletes a plan\'s policy and its limits, each a new audited rule set version with its diff', async () => {
      const before = await currentVersion();
      const created = await call('POST', '', newPolicy({ scope: 'subject', mode: 'shadow' }));
      expect(created.status).toBe(201);
      expect(created.body.policy).toMatchObject({
        plan: { id: fixture.plan.id, slug: fixture.plan.slug },
        tenant: null,
        name: 'items',
        method: 'GET',
        pattern: '/v1/items/*',
        cost: 1,
        scope: 'subject',
        mode: 'shadow',
        failureMode: 'open',
        replicaAck: false,
        regionScope: 'region',
        limits: [{ name: 'minute', windowS: 60, limit: 100, algorithm: 'fixed_window', burst: null }],
      });
      expect(created.body.ruleVersion).toBeGreaterThan(before);
      const id: string = created.body.policy.id;
      const v1 = await version(created.body.ruleVersion);
      expect(v1.compiled.policies.plans[fixture.plan.slug]['GET /v1/items/*']).toMatchObject({ id, name: 'items', mode: 'shadow', scope: 'subject' });
      // Not waiting for a replica is the rule set as before the setting existed: no field.
      expect(v1.compiled.policies.plans[fixture.plan.slug]['GET /v1/items/*']).not.toHaveProperty('replicaAck');
      expect(v1.compiled.policies.plans[fixture.plan.slug]['GET /v1/items/*']).not.toHaveProperty('regionScope');
      // "policy items", or "policy items (plan …)" while another owner has a policy of that name.
      const label = `policy items( \\(plan ${fixture.plan.slug}\\))?`;
      const lines = (v: { changes: { text: string }[] }) => v.changes.map((c) => c.text);
      expect(lines(v1)).toContainEqual(expect.stringMatching(new RegExp(`^${label} added to plan ${fixture.plan.slug}: GET /v1/items/\\*, 1 limit$`)));
      expect(await ctx.prisma.auditLog.findFirst({ where: { action: 'policy.created', entityId: id } })).toMatchObject({ entityType: 'policy', actor: expect.stringMatching(/^user:/) });
      expect((await call('GET', `/${id}`)).body).toEqual(created.body.policy);

      const changed = await call('PATCH', `/${id}`, { mode: 'enforce', cost: 2, failureMode: 'closed' });
      expect(changed.status).toBe(200);
      expect(changed.body.policy).toMatchObject({ mode: 'enforce', cost: 2, failureMode: 'closed' });
      expect(lines(await version(changed.body.ruleVersion))).toEqual([expect.stringMatching(new RegExp(`^${label}: cost 1 → 2, mode shadow → enforce, failure mode open → closed$`))]);
      const acked = await call('PATCH', `/${id}`, { replicaAck: true });
      expect(acked.body.policy.replicaAck).toBe(true);
      expect(lines(await version(acked.body.ruleVersion))).toEqual([expect.stringMatching(new RegExp(`^${label}: waits for a replica$`))]);
      expect((await version(acked.body.ruleVersion)).compiled.policies.plans[fixture.plan.slug]['GET /v1/items/*'].replicaAck).toBe(true);
      expect((await call('PATCH', `/${id}`, { replicaAck: 'yes' })).body).toMatchObject({ error: { code: 'validation_failed', field: 'replicaAck' } });
      const shared = await call('PATCH', `/${id}`, { regionScope: 'global' });
      expect(shared.body.policy.regionScope).toBe('global');
      expect(lines(await version(shared.body.ruleVersion))).toEqual([expect.stringMatching(new RegExp(`^${label}: one quota across regions$`))]);
      expect((await version(shared.body.ruleVersion)).compiled.policies.plans[fixture.plan.slug]['GET /v1/items/*'].regionScope).toBe('global');
      expect((await call('PATCH', `/${id}`, { regionScope: 'planet' })).body).toMatchObject({ error: { code: 'validation_failed', field: 'regionScope' } });
      // Only a fixed window's count can be shared out across regions.
      const bucket = await call('POST', `/${id}/limits`, { name: 'second', windowS: 1, limit: 5, algorithm: 'token_bucket', burst: 10 });
      expect(bucket.status).toBe(400);
      expect(bucket.body.error).toMatchObject({ code: 'rule_set_invalid', message: expect.stringContaining('can only have fixed-window limits, not token_bucket') });
      const perRegion = await call('PATCH', `/${id}`, { regionScope: 'region' });
      expect(lines(await version(perRegion.body.ruleVersion))).toEqual([expect.stringMatching(new RegExp(`^${label}: a quota in each region$`))]);
      const audit = await ctx.prisma.auditLog.findFirst({ where: { action: 'policy.updated', entityId: id } });
      expect(audit).toMatchObject({ before: expect.objectContaining({ mode: 'shadow' }), after: expect.objectContaining({ mode: 'enforce' }) });

      const added = await call('POST', `/${id}/limits`, { name: 'second', windowS: 1, limit: 5, algorithm: 'token_bucket', burst: 10 });
      expect(added.status).toBe(201);
      expect(added.body.limit).toMatchObject({ name: 'second', algorithm: 'token_bucket', burst: 10 });
      const limitId: string = added.body.limit.id;
      const patched = await call('PATCH', `/${id}/limits/${limitId}`, { limit: 8 });
      expect(patched.body.limit.limit).toBe(8);
      expect(lines(await version(patched.body.ruleVersion))).toEqual([expect.stringMatching(new RegExp(`^${label}: second 5 → 8$`))]);
      expect((await call('GET', `/${id}`)).body.limits.map((l: { name: string }) => l.name)).toEqual(['second', 'minute']);
      expect((await call('DELETE', `/${id}/limits/${limitId}`)).status).toBe(200);
      expect(await ctx.prisma.auditLog.count({ where: { entityId: limitId, action: { in: ['policy_limit.created', 'policy_limit.updated', 'policy_limit.deleted'] } } })).toBe(3);

      const deleted = await call('DELETE', `/${id}`);
      expect(deleted.status).toBe(200);
      expect((await version(deleted.body.ruleVersion)).compiled.policies.plans[fixture.plan.slug]).toBeUndefined();
      expect(await ctx.prisma.auditLog.findFirst({ where: { action: 'policy.deleted', entityId: id } })).not.toBeNull();
      expect((await call('GET', `/${id}`)).status).toBe(404);
    });

    it('compiles a tenant\'s own policy under the tenant, replacing its plan\'s policy of the same route', async () => {
      const { plan, tenant } = await createTenant(ctx.prisma);
      await call('POST', '', newPolicy({ planId: plan.id, cost: 1 }));
      const own = await call('POST', '', newPolicy({ planId: undefined, tenantId: tenant.id, cost: 3 }));
      expect(own.status).toBe(201);
      expect(own.body.policy).toMatchObject({ plan: null, tenant: { id: tenant.id, slug: tenant.slug }, cost: 3 });
      const compiled = (await version(own.body.ruleVersion)).compiled;
      expect(compiled.policies.tenants[tenant.slug]['GET /v1/items/*'].cost).toBe(3);
      expect(compiled.policies.plans[plan.slug]['GET /v1/items/*'].cost).toBe(1);
    });

    it('is enforced by /v1/check once its version is in force: the tenant\'s limits and the policy\'s together', async () => {
      const { plan, tenant } = await createTenant(ctx.prisma, [{ name: 'minute', windowS: 60, limit: 7 }]);
      const created = await call('POST', '', newPolicy({ planId: plan.id, limits: [{ name: 'minute', windowS: 60, limit: 1 }] }));
      await waitFor(async () => (await ctx.api.request('GET', '/health')).body.ruleVersion >= created.body.ruleVersion);
      const check = () => ctx.api.request('POST', '/v1/check', { token: serviceKey, body: { tenant: tenant.slug, endpoint: 'GET /v1/items/1' } });
      const first = await check();
      expect(first.body.limits.map((l: { name: string; limit: number }) => `${l.name}=${l.limit}`)).toEqual(['minute=7', 'items-minute=1']);
      expect(first.body).toMatchObject({ allowed: true, policy: 'items' });
      expect((await check()).body.allowed).toBe(false);
    });
  });

  describe('list', () => {
    let owner: Awaited<ReturnType<typeof createTenant>>;
    beforeAll(async () => {
      owner = await createTenant(ctx.prisma);
      for (const [method, pattern, mode] of [
        ['GET', '/a', 'enforce'],
        ['POST', '/a', 'shadow'],
        ['*', '/b/*', 'off'],
        ['GET', '/c/*/d', 'shadow'],
        ['DELETE', '/e', 'enforce'],
      ] as const) {
        const r = await call('POST', '', newPolicy({ planId: owner.plan.id, name: `p_${method === '*' ? 'any' : method.toLowerCase()}_${pattern.length}`, method, pattern, mode }));
        expect(r.status, JSON.stringify(r.body)).toBe(201);
      }
      await call('POST', '', newPolicy({ planId: undefined, tenantId: owner.tenant.id, name: 'mine', pattern: '/a' }));
    });

    it('pages through every policy in pattern and method order with nextCursor', async () => {
      const seen: { pattern: string; method: string; id: string }[] = [];
      let cursor: string | null = null;
      do {
        const r: { status: number; body: { items: { pattern: string; method: string; id: string }[]; nextCursor: string | null } } = await call(
          'GET',
          `?pageSize=2${cursor ? `&cursor=${cursor}` : ''}`,
        );
        expect(r.status).toBe(200);
        expect(r.body.items.length).toBeLessThanOrEqual(2);
        seen.push(...r.body.items);
        cursor = r.body.nextCursor;
      } while (cursor);
      expect(seen.length).toBe(await ctx.prisma.endpointPolicy.count());
      expect(new Set(seen.map((p) => p.id)).size).toBe(seen.length);
      const ordered = await ctx.prisma.endpointPolicy.findMany({ orderBy: [{ pattern: 'asc' }, { method: 'asc' }, { id: 'asc' }], select: { id: true } });
      expect(seen.map((p) => p.id)).toEqual(ordered.map((p) => p.id));
    });

    it('filters by plan, tenant, method and mode', async () => {
      const routes = async (query: string) => (await call('GET', `?${query}`)).body.items.map((p: { method: string; pattern: string }) => `${p.method} ${p.pattern}`);
      expect(await routes(`planId=${owner.plan.id}`)).toEqual(['GET /a', 'POST /a', '* /b/*', 'GET /c/*/d', 'DELETE /e']);
      expect(await routes(`tenantId=${owner.tenant.id}`)).toEqual(['GET /a']);
      expect(await routes(`planId=${owner.plan.id}&method=GET`)).toEqual(['GET /a', 'GET /c/*/d']);
      expect(await routes(`planId=${owner.plan.id}&mode=shadow`)).toEqual(['POST /a', 'GET /c/*/d']);
      expect(await routes(`planId=${owner.plan.id}&method=*`)).toEqual(['* /b/*']);
      // q: part of the name or the pattern, any case, `_` and `%` only themselves.
      expect(await routes(`planId=${owner.plan.id}&q=P_GET`)).toEqual(['GET /a', 'GET /c/*/d']);
      expect(await routes(`planId=${owner.plan.id}&q=${encodeURIComponent('/*/')}`)).toEqual(['GET /c/*/d']);
      expect(await routes(`tenantId=${owner.tenant.id}&q=%25`)).toEqual([]);
    });

    it('keeps the text filter across pages', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const r: { body: { items: { method: string; pattern: string }[]; nextCursor: string | null } } = await call('GET', `?planId=${owner.plan.id}&q=p_&pageSize=2${cursor ? `&cursor=${cursor}` : ''}`);
        seen.push(...r.body.items.map((p) => `${p.method} ${p.pattern}`));
        cursor = r.body.nextCursor;
      } while (cursor);
      expect(seen).toEqual(['GET /a', 'POST /a', '* /b/*', 'GET /c/*/d', 'DELETE /e']);
    });

    it.each([
      ['a bad page size', 'pageSize=0', 'pageSize'],
      ['the page size by its old name', 'limit=2', 'limit'],
      ['an unknown method', 'method=FETCH', 'method'],
      ['an unknown mode', 'mode=maybe', 'mode'],
      ['a malformed plan id', 'planId=nope', 'planId'],
      ['an empty text filter', 'q=', 'q'],
      ['a cursor we never handed out', 'cursor=bm9wZQ', 'cursor'],
      ['an unknown filter', 'owner=x', undefined],
    ])('refuses %s with 400', async (_label, query, field) => {
      const r = await call('GET', `?${query}`);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
      if (field) expect(r.body.error.field).toBe(field);
    });
  });

  describe('errors', () => {
    const unchanged = async (write: () => Promise<{ status: number; body: { error: { code: string; field?: string } } }>) => {
      const [versionBefore, policiesBefore, auditBefore] = await Promise.all([currentVersion(), ctx.prisma.endpointPolicy.count(), ctx.prisma.auditLog.count({ where: { entityType: { in: ['policy', 'policy_limit'] } } })]);
      const r = await write();
      expect(await currentVersion()).toBe(versionBefore);
      expect(await ctx.prisma.endpointPolicy.count()).toBe(policiesBefore);
      expect(await ctx.prisma.auditLog.count({ where: { entityType: { in: ['policy', 'policy_limit'] } } })).toBe(auditBefore);
      return r;
    };

    it.each<[string, Record<string, unknown>, string | undefined]>([
      ['no owner', { planId: undefined }, 'planId'],
      ['both a plan and a tenant', { tenantId: UNKNOWN }, 'planId'],
      ['an unknown plan', { planId: UNKNOWN }, 'planId'],
      ['a malformed plan id', { planId: 'starter' }, 'planId'],
      ['a pattern without a leading /', { pattern: 'v1/items' }, 'pattern'],
      ['a pattern with a query', { pattern: '/v1/items?page=2' }, 'pattern'],
      ['a pattern with an empty segment', { pattern: '/v1//items' }, 'pattern'],
      ['a pattern with * inside a segment', { pattern: '/v1/items*' }, 'pattern'],
      ['a regular expression', { pattern: '/v1/items/[0-9]+' }, 'pattern'],
      ['an unknown method', { method: 'FETCH' }, 'method'],
      ['a lower-case method', { method: 'get' }, 'method'],
      ['a zero cost', { cost: 0 }, 'cost'],
      ['a fractional cost', { cost: 1.5 }, 'cost'],
      ['a huge cost', { cost: 10_000_000_000 }, 'cost'],
      ['a name with a dash', { name: 'my-items' }, 'name'],
      ['an unknown mode', { mode: 'maybe' }, 'mode'],
      ['an unknown failure mode', { failureMode: 'retry' }, 'failureMode'],
      ['an unknown scope', { scope: 'world' }, 'scope'],
      ['a zero window', { limits: [{ name: 'minute', windowS: 0, limit: 5 }] }, 'limits.0.windowS'],
      ['a negative limit', { limits: [{ name: 'minute', windowS: 60, limit: -5 }] }, 'limits.0.limit'],
      ['an unknown algorithm', { limits: [{ name: 'minute', windowS: 60, limit: 5, algorithm: 'magic' }] }, 'limits.0.algorithm'],
      ['two limits with one name', { limits: [{ name: 'minute', windowS: 60, limit: 5 }, { name: 'minute', windowS: 1, limit: 1 }] }, 'limits'],
      ['an unknown field', { regex: '.*' }, undefined],
    ])('refuses a policy with %s: 400, nothing changed', async (_label, over, field) => {
      const r = await unchanged(() => call('POST', '', newPolicy({ name: 'bad', pattern: '/bad', ...over })));
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
      if (field) expect(r.body.error.field).toBe(field);
    });

    it.each<[string, Record<string, unknown>, string | undefined]>([
      ['an empty change', {}, undefined],
      ['a bad pattern', { pattern: '/x/' }, 'pattern'],
      ['a change of owner', { planId: UNKNOWN }, undefined],
      ['a bad mode', { mode: 'loud' }, 'mode'],
    ])('refuses a change with %s: 400, nothing changed', async (_label, patch, field) => {
      const { plan } = await createTenant(ctx.prisma);
      const id = (await call('POST', '', newPolicy({ planId: plan.id }))).body.policy.id;
      const r = await unchanged(() => call('PATCH', `/${id}`, patch));
      expect(r.status).toBe(400);
      if (field) expect(r.body.error.field).toBe(field);
    });

    it('answers 409 for a second policy of one owner with the same route or name, and changes nothing', async () => {
      const { plan } = await createTenant(ctx.prisma);
      const first = await call('POST', '', newPolicy({ planId: plan.id }));
      const sameRoute = await unchanged(() => call('POST', '', newPolicy({ planId: plan.id, name: 'other' })));
      expect(sameRoute.status).toBe(409);
      expect(sameRoute.body.error).toMatchObject({ code: 'conflict', message: expect.stringContaining('GET /v1/items/*') });
      const sameName = await unchanged(() => call('POST', '', newPolicy({ planId: plan.id, pattern: '/v1/other' })));
      expect(sameName.status).toBe(409);
      const second = await call('POST', '', newPolicy({ planId: plan.id, name: 'other', pattern: '/v1/other' }));
      expect((await unchanged(() => call('PATCH', `/${second.body.policy.id}`, { pattern: '/v1/items/*' }))).status).toBe(409);
      const limit = await unchanged(() => call('POST', `/${first.body.policy.id}/limits`, { name: 'minute', windowS: 60, limit: 5 }));
      expect(limit.status).toBe(409);
    });

    it('answers 404 for an unknown or malformed policy or limit id, and changes nothing', async () => {
      const { plan } = await createTenant(ctx.prisma);
      const id = (await call('POST', '', newPolicy({ planId: plan.id }))).body.policy.id;
      for (const [method, path, body] of [
        ['GET', `/${UNKNOWN}`],
        ['GET', '/nope'],
        ['PATCH', `/${UNKNOWN}`, { cost: 2 }],
        ['DELETE', `/${UNKNOWN}`],
        ['POST', `/${UNKNOWN}/limits`, { name: 'x', windowS: 1, limit: 1 }],
        ['PATCH', `/${id}/limits/${UNKNOWN}`, { limit: 1 }],
        ['DELETE', `/${id}/limits/${UNKNOWN}`],
        ['DELETE', `/${id}/limits/nope`],
      ] as const) {
        const r = await unchanged(() => call(method, path, body));
        expect(r.status, `${method} ${path}`).toBe(404);
        expect(r.body.error.code).toBe('not_found');
      }
    });

    type Owners = { planId: string; tenantId: string };
    it.each<[string, (o: Owners) => Promise<unknown>, (o: Owners) => Promise<unknown>, RegExp]>([
      [
        'a limit the engine cannot run',
        async () => undefined,
        ({ planId }) => call('POST', '', newPolicy({ planId, limits: [{ name: 'daily', windowS: 86_400, limit: 50_000, algorithm: 'sliding_log' }] })),
        /10,?000|sliding/i,
      ],
      ['a cost no request could pay', async () => undefined, ({ planId }) => call('POST', '', newPolicy({ planId, cost: 101 })), /costs 101/],
      [
        'a tenant policy named like another route\'s plan policy',
        ({ planId }) => call('POST', '', newPolicy({ planId })),
        ({ tenantId }) => call('POST', '', newPolicy({ planId: undefined, tenantId, pattern: '/v1/other' })),
        /both named items/,
      ],
    ])('refuses %s with rule_set_invalid, keeps the version in force, audits the refusal', async (_label, setup, write, message) => {
      const { plan, tenant } = await createTenant(ctx.prisma);
      const owners = { planId: plan.id, tenantId: tenant.id };
      await setup(owners);
      const r = (await unchanged(() => write(owners) as never)) as { status: number; body: { error: { code: string; message: string } } };
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('rule_set_invalid');
      expect(r.body.error.message).toMatch(message);
      const rejection = await ctx.prisma.auditLog.findFirst({ where: { action: 'rule_set.rejected' }, orderBy: { id: 'desc' } });
      expect((rejection!.after as { reason: string }).reason).toMatch(message);
    });
  });

  describe('security', () => {
    it('answers 401 to anonymous callers and 403 to service keys and tenant users', async () => {
      const tenantToken = await ctx.signIn('tenant', fixture.tenant.id);
      for (const [method, body] of [['GET'], ['POST', newPolicy()]] as const) {
        expect((await call(method, '', body, '')).status).toBe(401);
        expect((await call(method, '', body, serviceKey)).status).toBe(403);
        expect((await call(method, '', body, tenantToken)).status).toBe(403);
      }
    });
  });
});
