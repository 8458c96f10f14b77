import { beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../../../../../test/support/context';
import { TEST_REDIS_URL } from '../../../../../test/support/env';
import { createServiceKey, createTenant, createTenantKey, publishRules } from '../../../../../test/support/fixtures';

// The read-only tenant API: a tenant's users and tenant keys see their own tenant, and nothing else
// (tenant isolation on the tenant routes; test/integration/route-matrix.int-spec.ts checks every route's status).
describe('tenant API (own tenant, read only)', () => {
  const ctx = useOperatorApi();
  let a: Awaited<ReturnType<typeof createTenant>>;
  let b: Awaited<ReturnType<typeof createTenant>>;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    a = await createTenant(ctx.prisma);
    b = await createTenant(ctx.prisma, [{ name: 'hourly', windowS: 3600, limit: 50 }]);
    await ctx.prisma.tenantLimitOverride.create({ data: { tenantId: a.tenant.id, name: 'minute', windowS: 60, limit: 25 } });
    tokens.userA = await ctx.signIn('tenant', a.tenant.id);
    tokens.userB = await ctx.signIn('tenant', b.tenant.id);
    tokens.keyA = (await createTenantKey(ctx.prisma, a.tenant.id)).key;
    tokens.keyB = (await createTenantKey(ctx.prisma, b.tenant.id)).key;
    tokens.revokedA = (await createTenantKey(ctx.prisma, a.tenant.id, { revoked: true })).key;
    tokens.expiredA = (await createTenantKey(ctx.prisma, a.tenant.id, { expiresAt: new Date(Date.now() - 1000) })).key;
    tokens.operator = ctx.session;
    tokens.service = await createServiceKey(ctx.prisma, [a.tenant.id]);
    const { version } = await publishRules(ctx.prisma, TEST_REDIS_URL);
    await ctx.api.waitForRuleVersion(version);
  });

  it('shows a user and a key of tenant A their own tenant, and B theirs', async () => {
    for (const token of [tokens.userA, tokens.keyA]) {
      const r = await ctx.api.request('GET', '/v1/tenant', { token });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ id: a.tenant.id, slug: a.tenant.slug, name: a.tenant.name, status: 'active', timeZone: 'UTC', plan: { slug: a.plan.slug, name: a.plan.name } });
    }
    for (const token of [tokens.userB, tokens.keyB]) expect((await ctx.api.request('GET', '/v1/tenant', { token })).body.slug).toBe(b.tenant.slug);
  });

  it('shows the limits in force: the plan with the tenant\'s overrides, from the current rule set', async () => {
    const r = await ctx.api.request('GET', '/v1/tenant/limits', { token: tokens.keyA });
    expect(r.status).toBe(200);
    expect(r.body.ruleVersion).toBeGreaterThanOrEqual(1);
    expect(r.body.limits).toEqual([
      { name: 'minute', windowS: 60, limit: 25, algorithm: 'fixed_window' },
      { name: 'daily', windowS: 86_400, limit: 1000, algorithm: 'fixed_window' },
    ]);
    expect(r.body.policies).toEqual([]);
    expect((await ctx.api.request('GET', '/v1/tenant/limits', { token: tokens.userB })).body.limits).toEqual([{ name: 'hourly', windowS: 3600, limit: 50, algorithm: 'fixed_window' }]);
  });

  it('lists only the tenant\'s own keys, without secrets or hashes', async () => {
    const r = await ctx.api.request('GET', '/v1/tenant/keys', { token: tokens.userA });
    expect(r.status).toBe(200);
    expect(r.body.items).toHaveLength(3);
    for (const key of r.body.items) {
      expect(key).toMatchObject({ kind: 'tenant', tenantId: a.tenant.id });
      expect(JSON.stringify(key)).not.toMatch(/hash|tg_test_t_[0-9A-Za-z]{32}/);
    }
    const ofB = await ctx.api.request('GET', '/v1/tenant/keys', { token: tokens.keyB });
    expect(ofB.body.items.map((k: { tenantId: string }) => k.tenantId)).toEqual([b.tenant.id]);
  });

  it('ignores any attempt to name another tenant in the request', async () => {
    const r = await ctx.api.request('GET', `/v1/tenant?tenantId=${b.tenant.id}&tenant=${b.tenant.slug}`, { token: tokens.keyA });
    expect(r.body.slug).toBe(a.tenant.slug);
  });

  it('refuses revoked, expired and mistyped tenant keys (401) and keeps tenant callers off every other route (403)', async () => {
    // A typo in the last character (the checksum's): never the key itself.
    const typo = tokens.keyA!.slice(0, -1) + (tokens.keyA!.endsWith('x') ? 'y' : 'x');
    for (const token of [tokens.revokedA, tokens.expiredA, typo]) {
      const r = await ctx.api.request('GET', '/v1/tenant', { token });
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('unauthenticated');
    }
    for (const token of [tokens.userA, tokens.keyA]) {
      expect((await ctx.api.request('GET', '/v1/admin/tenants', { token })).status).toBe(403);
      expect((await ctx.api.request('GET', `/v1/admin/tenants/${a.tenant.id}`, { token })).status).toBe(403);
      expect((await ctx.api.request('POST', '/v1/check', { token, body: { tenant: a.tenant.slug } })).status).toBe(403);
    }
    for (const token of [tokens.operator, tokens.service]) expect((await ctx.api.request('GET', '/v1/tenant', { token })).status).toBe(403);
  });

  it('tells a tenant user who they are, with their tenant', async () => {
    const r = await ctx.api.request('GET', '/v1/auth/me', { token: tokens.userA });
    expect(r.status).toBe(200);
    expect(r.body.user).toMatchObject({ role: 'tenant', tenantId: a.tenant.id });
    expect((await ctx.api.request('GET', '/v1/auth/me', { token: tokens.keyA })).status).toBe(403);
  });
});
