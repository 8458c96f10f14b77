import { beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../../../../../test/support/context';
import { createTenant, waitFor } from '../../../../../test/support/fixtures';

describe('API keys', () => {
  const ctx = useOperatorApi();
  let fixture: Awaited<ReturnType<typeof createTenant>>;
  beforeAll(async () => {
    fixture = await createTenant(ctx.prisma);
  });

  const admin = (method: string, path: string, body?: unknown, token = ctx.session) => ctx.api.request(method, `/v1/admin/keys${path}`, { token, body });
  const check = (key: string) => ctx.api.request('POST', '/v1/check', { token: key, body: { tenant: fixture.tenant.slug, endpoint: 'GET /x' } });

  describe('happy', () => {
    it('creates a service key shown once, stores only its hash, and the key checks at once', async () => {
      const r = await admin('POST', '', { kind: 'service', name: 'gateway', tenants: [fixture.tenant.slug] });
      expect(r.status).toBe(201);
      expect(r.body.key).toMatch(/^tg_live_s_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}$/);
      expect(r.body.apiKey).toMatchObject({
        kind: 'service',
        name: 'gateway',
        prefix: r.body.key.slice(0, 14),
        allTenants: false,
        tenants: [{ id: fixture.tenant.id, slug: fixture.tenant.slug, name: fixture.tenant.name }],
      });
      expect(JSON.stringify((await admin('GET', '')).body)).not.toContain(r.body.key);
      const row = await ctx.prisma.apiKey.findUnique({ where: { id: r.body.apiKey.id } });
      expect(row!.hash).not.toContain(r.body.key.slice(14));
      expect((await check(r.body.key)).status).toBe(200);
      expect((await admin('GET', `/${r.body.apiKey.id}`)).body.id).toBe(r.body.apiKey.id);
    });

    it('revokes a key: refused within a second, and listed as revoked', async () => {
      const { key, apiKey } = (await admin('POST', '', { kind: 'service', name: 'doomed' })).body;
      expect((await check(key)).status).toBe(200);
      const r = await admin('POST', `/${apiKey.id}/revoke`);
      expect(r.body.apiKey.revokedAt).not.toBeNull();
      await waitFor(async () => (await check(key)).status === 401, 1_000);
      expect((await admin('GET', '?revoked=true')).body.items.map((k: { id: string }) => k.id)).toContain(apiKey.id);
    });

    it('rotates with overlap: both keys work, and without overlap the old one stops', async () => {
      const { key: first, apiKey } = (await admin('POST', '', { kind: 'service', name: 'rotating' })).body;
      const overlapping = await admin('POST', `/${apiKey.id}/rotate`, { overlapSeconds: 600 });
      expect(overlapping.status).toBe(200);
      expect(overlapping.body.key).not.toBe(first);
      expect((await check(first)).status).toBe(200);
      expect((await check(overlapping.body.key)).status).toBe(200);
      const abrupt = await admin('POST', `/${overlapping.body.apiKey.id}/rotate`, { overlapSeconds: 0 });
      await waitFor(async () => (await check(overlapping.body.key)).status === 401, 1_000);
      expect((await check(abrupt.body.key)).status).toBe(200);
    });

    it('operator keys automate the admin API and nothing else', async () => {
      const { key, apiKey } = (await admin('POST', '', { kind: 'operator', name: 'terraform' })).body;
      expect(key).toMatch(/^tg_live_o_/);
      expect((await ctx.api.request('GET', '/v1/admin/plans', { token: key })).status).toBe(200);
      expect((await check(key)).status).toBe(403);
      await admin('POST', `/${apiKey.id}/revoke`);
      expect((await ctx.api.request('GET', '/v1/admin/plans', { token: key })).status).toBe(401);
      expect((await ctx.prisma.apiKey.findUnique({ where: { id: apiKey.id } }))!.lastUsedAt).not.toBeNull();
    });

    it('creates a tenant key bound to its tenant', async () => {
      const r = await admin('POST', '', { kind: 'tenant', name: 'mobile app', tenantId: fixture.tenant.id });
      expect(r.status).toBe(201);
      expect(r.body.apiKey).toMatchObject({ kind: 'tenant', tenantId: fixture.tenant.id });
      expect((await admin('GET', `?tenantId=${fixture.tenant.id}&kind=tenant`)).body.items).toHaveLength(1);
    });

    it('pages through keys newest first with nextCursor, filters included', async () => {
      const { tenant } = await createTenant(ctx.prisma);
      for (let i = 0; i < 5; i += 1) expect((await admin('POST', '', { kind: 'tenant', name: `k${i}`, tenantId: tenant.id })).status).toBe(201);
      const names: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { status: number; body: { items: { name: string }[]; nextCursor: string | null } } = await admin('GET', `?tenantId=${tenant.id}&pageSize=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.status).toBe(200);
        names.push(...page.body.items.map((k) => k.name));
        cursor = page.body.nextCursor;
      } while (cursor);
      expect(names).toEqual(['k4', 'k3', 'k2', 'k1', 'k0']);
      expect((await admin('GET', '?pageSize=0')).status).toBe(400);
      expect((await admin('GET', '?cursor=00000000-0000-4000-8000-000000000000')).body.error).toMatchObject({ code: 'validation_failed', field: 'cursor' });
    });
  });

  describe('errors', () => {
    it.each([
      ['an unknown kind', { kind: 'root', name: 'x' }, 'kind'],
      ['a missing name', { kind: 'service' }, 'name'],
      ['an expiry in the past', { kind: 'service', name: 'x', expiresAt: '2020-01-01T00:00:00Z' }, 'expiresAt'],
      ['an expiry past the year 9999 in UTC', { kind: 'service', name: 'x', expiresAt: '9999-12-31T23:59:59-14:00' }, 'expiresAt'],
      ['an unknown tenant for a tenant key', { kind: 'tenant', name: 'x', tenantId: '00000000-0000-4000-8000-000000000000' }, 'tenantId'],
      ['an unknown tenant in a service key\'s list', { kind: 'service', name: 'x', tenants: ['no-such-tenant'] }, 'tenants'],
      ['an unknown tenant id in a service key\'s list', { kind: 'service', name: 'x', tenants: ['00000000-0000-4000-8000-000000000000'] }, 'tenants'],
      ['an empty tenant list (neither every tenant nor any)', { kind: 'service', name: 'x', tenants: [] }, 'tenants'],
    ])('refuses %s with 400 naming the field', async (_label, body, field) => {
      const r = await admin('POST', '', body);
      expect(r.status).toBe(400);
      expect(r.body.error.field).toBe(field);
    });

    it('answers 404 for unknown keys and 409 for rotating a revoked one', async () => {
      expect((await admin('POST', '/00000000-0000-4000-8000-000000000000/revoke')).status).toBe(404);
      const { apiKey } = (await admin('POST', '', { kind: 'service', name: 'gone' })).body;
      await admin('POST', `/${apiKey.id}/revoke`);
      expect((await admin('POST', `/${apiKey.id}/rotate`, {})).status).toBe(409);
    });

    it('rate limits key creation per operator (a bucket of 30, refilled 30 a minute) with Tollgate\'s own limiter', async () => {
      const own = await ctx.signIn();
      // 45 at once: the bucket's 30 and what refills while they are made (one every 2 s) pass, the rest are 429s,
      // however slow the machine makes each creation (one after another, a loaded machine refilled as fast as it made
      // them); none is a 500 (changes at once used to wait for the version lock on every pooled connection).
      const statuses = await Promise.all(Array.from({ length: 45 }, (_, i) => admin('POST', '', { kind: 'operator', name: `k${i}` }, own).then((r) => r.status)));
      const created = statuses.filter((s) => s === 201).length;
      expect(created).toBeGreaterThanOrEqual(30);
      expect(statuses.filter((s) => s === 429)).toHaveLength(45 - created);
      expect(created).toBeLessThan(45);
    }, 90_000);
  });
});
