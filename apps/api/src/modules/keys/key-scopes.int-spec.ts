import { beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../../../../../test/support/context';
import { createTenant, createTenantKey } from '../../../../../test/support/fixtures';

// A service key's scope names tenants by id: a slug can be given to a new tenant once its tenant is deleted, and a
// key scoped to the deleted one must not reach the new one.
describe('service key scopes', () => {
  const ctx = useOperatorApi();
  let planId: string;
  beforeAll(async () => {
    ({ plan: { id: planId } } = await createTenant(ctx.prisma));
  });

  const admin = (method: string, path: string, body?: unknown) => ctx.api.request(method, `/v1/admin${path}`, { token: ctx.session, body });
  const inForce = (version: number) => ctx.api.waitForRuleVersion(version);
  const check = (token: string, body: Record<string, unknown>) => ctx.api.request('POST', '/v1/check', { token, body: { endpoint: 'GET /x', ...body } });
  const newTenant = async (slug: string) => {
    const r = await admin('POST', '/tenants', { slug, name: `Tenant ${slug}`, planId });
    expect(r.status).toBe(201);
    await inForce(r.body.ruleVersion);
    return r.body.tenant as { id: string; slug: string; name: string };
  };
  const newKey = async (body: Record<string, unknown>) => {
    const r = await admin('POST', '/keys', { kind: 'service', name: 'scoped', ...body });
    expect(r.status).toBe(201);
    await inForce(r.body.ruleVersion);
    return r.body as { key: string; apiKey: { id: string; allTenants: boolean; tenants: { id: string; slug: string }[] } };
  };
  const deleteTenant = async (id: string) => {
    const r = await admin('DELETE', `/tenants/${id}`);
    expect(r.status).toBe(200);
    await inForce(r.body.ruleVersion);
  };
  const unique = () => `scope-${Math.random().toString(36).slice(2, 10)}`;

  it('does not reach a new tenant given the slug of the deleted tenant it was scoped to', async () => {
    const slug = unique();
    const first = await newTenant(slug);
    const { key, apiKey } = await newKey({ tenants: [slug] });
    expect(apiKey).toMatchObject({ allTenants: false, tenants: [{ id: first.id, slug }] });
    expect((await check(key, { tenant: slug })).status).toBe(200);

    await deleteTenant(first.id);
    const second = await newTenant(slug);
    const tenantKey = await createTenantKey(ctx.prisma, second.id);
    // The tenant key is written directly: a change publishes it.
    await inForce((await admin('PATCH', `/tenants/${second.id}`, { name: 'republished' })).body.ruleVersion);

    const bySlug = await check(key, { tenant: slug });
    expect(bySlug.status).toBe(404);
    expect(bySlug.body.error.code).toBe('not_found');
    // The new tenant's key is valid, but not for this service: refused as such, without naming the tenant.
    const byKey = (await check(key, { key: tenantKey.key })).body;
    expect(byKey).toMatchObject({ allowed: false, reason: 'tenant_not_allowed' });
    expect(byKey.tenant).toBeUndefined();
    // The key's view says it reaches no tenant now.
    expect((await admin('GET', `/keys/${apiKey.id}`)).body).toMatchObject({ allTenants: false, tenants: [] });
  });

  it('keeps a key whose only tenant was deleted scoped to nothing, not to every tenant', async () => {
    const doomed = await newTenant(unique());
    const bystander = await newTenant(unique());
    const { key, apiKey } = await newKey({ tenants: [doomed.id] });
    expect((await check(key, { tenant: bystander.slug })).status).toBe(404);

    await deleteTenant(doomed.id);
    expect((await check(key, { tenant: bystander.slug })).status).toBe(404);
    expect((await ctx.prisma.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } })).allTenants).toBe(false);
  });

  it('loses only the deleted tenant from a wider scope, and takes tenants by id or slug', async () => {
    const [a, b] = [await newTenant(unique()), await newTenant(unique())];
    const { key, apiKey } = await newKey({ tenants: [a.id, b.slug] });
    expect(apiKey.tenants.map((t) => t.id).sort()).toEqual([a.id, b.id].sort());

    await deleteTenant(a.id);
    expect((await check(key, { tenant: b.slug })).status).toBe(200);
    expect((await admin('GET', `/keys/${apiKey.id}`)).body.tenants).toEqual([{ id: b.id, slug: b.slug, name: b.name }]);
    // A rotated key keeps the scope.
    const rotated = await admin('POST', `/keys/${apiKey.id}/rotate`, { overlapSeconds: 0 });
    expect(rotated.body.apiKey).toMatchObject({ allTenants: false, tenants: [{ id: b.id }] });
  });

  it('reaches every tenant, those created later too, when tenants is left out', async () => {
    const { key, apiKey } = await newKey({});
    expect(apiKey).toMatchObject({ allTenants: true, tenants: [] });
    const later = await newTenant(unique());
    expect((await check(key, { tenant: later.slug })).status).toBe(200);
  });
});
