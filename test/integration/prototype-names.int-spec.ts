import { beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../support/context';
import { createUser, publishRules } from '../support/fixtures';

// Names of Object.prototype's members as slugs and names, end to end: the rule set indexes tenants, plans and
// policies by them. `constructor` is the one that every name rule allows (slugs and limit and policy names are
// lower case); display names take all of them. The file restores a version, so it has a database and a Redis
// database of its own (a restore rolls back every plan).

describe('prototype member names as slugs and names', () => {
  const ctx = useOperatorApi({}, { ownStores: ['names', 6] });
  beforeAll(async () => {
    const { version } = await publishRules(ctx.prisma, ctx.redisUrl);
    await ctx.api.waitForRuleVersion(version);
  });

  const admin = async (method: string, path: string, body?: unknown, expected = 200) => {
    const r = await ctx.api.request(method, `/v1/admin${path}`, { token: ctx.session, body });
    expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBe(expected);
    return r.body;
  };

  it('creates, compiles, checks, shows, diffs and restores them like any other name', async () => {
    const first: number = (await admin('GET', '/rule-sets/current')).version;
    const plan = (await admin('POST', '/plans', { slug: 'constructor', name: '__proto__', limits: [{ name: 'constructor', windowS: 60, limit: 5 }] }, 201)).plan;
    await admin('POST', '/plans', { slug: 'tostring', name: 'toString', limits: [{ name: 'hasownproperty', windowS: 60, limit: 7 }] }, 201);
    const tenant = (await admin('POST', '/tenants', { slug: 'constructor', name: 'toString', planId: plan.id }, 201)).tenant;
    await admin('PUT', `/tenants/${tenant.id}/overrides/constructor`, { windowS: 60, limit: 3 });
    await admin('POST', '/policies', { planId: plan.id, name: 'constructor', method: 'GET', pattern: '/constructor/*', limits: [{ name: 'constructor', windowS: 60, limit: 2 }] }, 201);
    const own = await admin('POST', '/policies', { tenantId: tenant.id, name: 'hasownproperty', method: '*', pattern: '/own', limits: [{ name: 'valueof', windowS: 60, limit: 9 }] }, 201);
    const service = await admin('POST', '/keys', { kind: 'service', name: 'hasOwnProperty', tenants: ['constructor'] }, 201);
    const tenantKey = await admin('POST', '/keys', { kind: 'tenant', name: '__proto__', tenantId: tenant.id }, 201);
    const version: number = own.ruleVersion;

    // Enforced under its name, with the override, the plan's policy and the tenant's own.
    const check = (body: object) => ctx.api.request('POST', '/v1/check', { token: service.key, body });
    const bySlug = await check({ tenant: 'constructor', endpoint: 'GET /constructor/1' });
    expect(bySlug.status, JSON.stringify(bySlug.body)).toBe(200);
    expect(bySlug.body).toMatchObject({ allowed: true, tenant: 'constructor', policy: 'constructor', ruleVersion: tenantKey.ruleVersion });
    expect(bySlug.body.limits.map((l: { name: string; limit: number }) => [l.name, l.limit])).toEqual([['constructor', 3], ['constructor-constructor', 2]]);
    const byKey = await check({ key: tenantKey.key, endpoint: 'POST /own' });
    expect(byKey.body).toMatchObject({ allowed: true, tenant: 'constructor', policy: 'hasownproperty' });

    // Shown to the tenant as its own, and to the operator in lists and filters.
    const tenantSession = await ctx.api.login(await createUser(ctx.prisma, 'tenant', tenant.id));
    const limits = await ctx.api.request('GET', '/v1/tenant/limits', { token: tenantSession });
    expect(limits.body.policies.map((p: { route: string; name: string }) => [p.route, p.name])).toEqual([['* /own', 'hasownproperty'], ['GET /constructor/*', 'constructor']]);
    expect((await admin('GET', '/plans?q=constructor')).items.map((p: { slug: string }) => p.slug)).toEqual(['constructor']);
    expect((await admin('GET', '/plans?q=__proto__')).items.map((p: { name: string }) => p.name)).toEqual(['__proto__']);
    expect((await admin('GET', `/tenants/${tenant.id}`)).name).toBe('toString');

    // The diff says what was added, under those names.
    const diff = await admin('GET', `/rule-sets/diff?from=${first}&to=${version}`);
    expect(diff.changes.map((c: { text: string }) => c.text)).toEqual(
      expect.arrayContaining([
        'plan constructor added: constructor 5 per minute',
        'plan tostring added: hasownproperty 7 per minute',
        'tenant constructor added on plan constructor, overrides constructor 3 per minute',
        'policy constructor added to plan constructor: GET /constructor/*, 1 limit',
        'policy hasownproperty added to tenant constructor: * /own, 1 limit',
      ]),
    );

    // A later change rolled back by restoring the version: the override's limit of 3 is back.
    await admin('PUT', `/tenants/${tenant.id}/overrides/constructor`, { windowS: 60, limit: 4 });
    const restored = await admin('POST', `/rule-sets/${version}/restore`);
    expect(restored.restoredFrom).toBe(version);
    const after = await check({ tenant: 'constructor', endpoint: 'GET /x' });
    expect(after.body).toMatchObject({ ruleVersion: restored.ruleVersion, limits: [{ name: 'constructor', limit: 3 }] });

    // And removed like any other.
    await admin('DELETE', `/tenants/${tenant.id}`);
    await admin('DELETE', `/plans/${plan.id}`);
    const gone = await check({ tenant: 'constructor', endpoint: 'GET /x' });
    expect(gone.status).toBe(404);
  });

  it('answers 404 for an unknown tenant named like a prototype member, to a key that may check every tenant', async () => {
    const service = await admin('POST', '/keys', { kind: 'service', name: 'every tenant' }, 201);
    await expect.poll(async () => (await ctx.api.request('GET', '/health')).body.ruleVersion).toBeGreaterThanOrEqual(service.ruleVersion);
    for (const slug of ['constructor', 'tostring', 'hasownproperty', 'valueof']) {
      const r = await ctx.api.request('POST', '/v1/check', { token: service.key, body: { tenant: slug, endpoint: 'GET /x' } });
      expect(r.status, `${slug}: ${JSON.stringify(r.body)}`).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
  });
});
