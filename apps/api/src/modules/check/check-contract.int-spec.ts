import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type TestApi } from '../../../../../test/support/api';
import { TEST_DATABASE_URL, TEST_METRICS_TOKEN, TEST_REDIS_URL } from '../../../../../test/support/env';
import { awayFromMinuteBoundary, createServiceKey, createTenant, createTenantKey, publishRules } from '../../../../../test/support/fixtures';

// The whole check contract: tenant by key, endpoint policies (most specific wins, cost weight, subject
// scopes, shadow, off), daily quotas on the tenant's calendar, peek / refund / lease / batch.
describe('enforcement API: the check contract', () => {
  let prisma: PrismaClient;
  let api: TestApi;
  let service: string;

  beforeAll(async () => {
    prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    api = await startApi();
    service = await createServiceKey(prisma);
  });
  afterAll(async () => {
    await api.close();
    await prisma.$disconnect();
  });

  const post = (path: string, body: unknown, token = service) => api.request('POST', path, { token, body });
  const inForce = async () => {
    const ruleSet = await publishRules(prisma, TEST_REDIS_URL);
    await api.waitForRuleVersion(ruleSet.version);
  };
  /** A tenant whose plan allows `limit` a minute, with endpoint policies on its plan. */
  const tenantWithPolicies = async (limit: number, policies: { name: string; method: string; pattern: string; cost?: number; scope?: 'tenant' | 'subject' | 'ip'; mode?: 'enforce' | 'shadow' | 'off'; limit: number }[]) => {
    const fixture = await createTenant(prisma, [{ name: 'minute', windowS: 60, limit }]);
    for (const p of policies) {
      await prisma.endpointPolicy.create({
        data: {
          planId: fixture.plan.id,
          name: p.name,
          method: p.method,
          pattern: p.pattern,
          cost: p.cost ?? 1,
          scope: p.scope ?? 'tenant',
          mode: p.mode ?? 'enforce',
          limits: { create: [{ name: 'minute', windowS: 60, limit: p.limit }] },
        },
      });
    }
    await inForce();
    return fixture;
  };
  const names = (r: { body: { limits: { name: string }[] } }) => r.body.limits.map((l) => l.name);
  const remaining = (r: { body: { limits: { remaining: number }[] } }) => r.body.limits.map((l) => l.remaining);

  describe('the tenant, by slug or by its API key', () => {
    it('decides for the tenant a live key belongs to, and says which', async () => {
      const { tenant } = await createTenant(prisma);
      const { key } = await createTenantKey(prisma, tenant.id);
      await inForce();
      const r = await post('/v1/check', { key, endpoint: 'GET /v1/items' });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ allowed: true, tenant: tenant.slug });
      expect(remaining(r)).toEqual([9, 999]);
    });

    it('denies, with a reason and without charging, for unknown, revoked and expired keys, and keys of a tenant the service may not check', async () => {
      const { tenant } = await createTenant(prisma);
      const other = await createTenant(prisma);
      const revoked = await createTenantKey(prisma, tenant.id, { revoked: true });
      const expired = await createTenantKey(prisma, tenant.id, { expiresAt: new Date(Date.now() - 1000) });
      const live = await createTenantKey(prisma, tenant.id);
      const scoped = await createServiceKey(prisma, [other.tenant.id]);
      await inForce();
      const cases: [string, string, string][] = [
        [revoked.key, service, 'key_invalid'],
        ['tg_live_t_not_a_real_key', service, 'key_invalid'],
        [expired.key, service, 'key_expired'],
        // A valid key: not `key_invalid` (the client's key is fine), the service key may not check its tenant.
        [live.key, scoped, 'tenant_not_allowed'],
      ];
      for (const [key, token, reason] of cases) {
        const r = await post('/v1/check', { key, endpoint: 'GET /x' }, token);
        expect(r.status).toBe(200);
        expect(r.body).toMatchObject({ allowed: false, reason, limits: [] });
      }
      expect(remaining(await post('/v1/check', { key: live.key, endpoint: 'GET /x' }))).toEqual([9, 999]);
    });

    it('stops accepting a key within the rule set version that revokes it', async () => {
      const { tenant } = await createTenant(prisma);
      const { key, id } = await createTenantKey(prisma, tenant.id);
      await inForce();
      expect((await post('/v1/check', { key, endpoint: 'GET /x' })).body.allowed).toBe(true);
      await prisma.apiKey.update({ where: { id }, data: { revokedAt: new Date() } });
      await inForce();
      expect((await post('/v1/check', { key, endpoint: 'GET /x' })).body).toMatchObject({ allowed: false, reason: 'key_invalid' });
    });

    it('refuses a check naming both or neither with 400', async () => {
      const { tenant } = await createTenant(prisma);
      for (const body of [{ endpoint: 'GET /x' }, { tenant: tenant.slug, key: 'tg_live_t_x', endpoint: 'GET /x' }]) {
        const r = await post('/v1/check', body);
        expect(r.status).toBe(400);
        expect(r.body.error).toMatchObject({ code: 'validation_failed', field: 'tenant' });
      }
    });
  });

  describe('endpoint policies', () => {
    it('applies the most specific policy, with the tenant\'s limits, at its cost weight', async () => {
      await awayFromMinuteBoundary();
      const { tenant } = await tenantWithPolicies(100, [
        { name: 'items', method: '*', pattern: '/v1/items/*', limit: 50 },
        { name: 'export', method: 'GET', pattern: '/v1/items/export', cost: 5, limit: 20 },
      ]);
      const exp = await post('/v1/check', { tenant: tenant.slug, endpoint: 'GET /v1/items/export?format=csv' });
      expect(exp.body).toMatchObject({ allowed: true, policy: 'export' });
      expect(names(exp)).toEqual(['minute', 'export-minute']);
      expect(remaining(exp)).toEqual([95, 15]);
      const item = await post('/v1/check', { tenant: tenant.slug, endpoint: 'DELETE /v1/items/42', cost: 2 });
      expect(item.body.policy).toBe('items');
      expect(remaining(item)).toEqual([93, 48]);
      const none = await post('/v1/check', { tenant: tenant.slug, endpoint: 'GET /v1/other' });
      expect(none.body.policy).toBeUndefined();
      expect(remaining(none)).toEqual([92]);
      // Four more exports fit the policy's 20; the fifth does not, and charges nothing.
      for (let i = 0; i < 3; i += 1) expect((await post('/v1/check', { tenant: tenant.slug, endpoint: 'GET /v1/items/export' })).body.allowed).toBe(true);
      const denied = await post('/v1/check', { tenant: tenant.slug, endpoint: 'GET /v1/items/export' });
      expect(denied.body).toMatchObject({ allowed: false, policy: 'export' });
      expect(remaining(denied)).toEqual([77, 0]);
      expect(Number(denied.body.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
      // Counted by tenant, endpoint policy, result and mode.
      const metrics = String((await api.request('GET', '/metrics', { token: TEST_METRICS_TOKEN })).body);
      expect(metrics).toContain(`tollgate_decisions_total{tenant="${tenant.slug}",endpoint="export",result="allowed",mode="enforce"} 4`);
      expect(metrics).toContain(`tollgate_decisions_total{tenant="${tenant.slug}",endpoint="export",result="denied",mode="enforce"} 1`);
      expect(metrics).toContain(`tollgate_decisions_total{tenant="${tenant.slug}",endpoint="-",result="allowed",mode="enforce"} 1`);
      // Read again: the same counts (the hot path's tallies are handed over once).
      expect(String((await api.request('GET', '/metrics', { token: TEST_METRICS_TOKEN })).body)).toContain(`tollgate_decisions_total{tenant="${tenant.slug}",endpoint="export",result="allowed",mode="enforce"} 4`);
    });

    it('counts a subject-scoped policy per subject and an IP-scoped one per address (IPv6 per /64, IPv4-mapped as IPv4)', async () => {
      await awayFromMinuteBoundary();
      const { tenant } = await tenantWithPolicies(1000, [
        { name: 'user', method: 'POST', pattern: '/v1/messages', scope: 'subject', limit: 2 },
        { name: 'anon', method: 'POST', pattern: '/v1/signup', scope: 'ip', limit: 2 },
      ]);
      const send = (subject: string) => post('/v1/check', { tenant: tenant.slug, endpoint: 'POST /v1/messages', subject });
      expect((await send('alice')).body.allowed).toBe(true);
      expect((await send('alice')).body.allowed).toBe(true);
      expect((await send('alice')).body.allowed).toBe(false);
      expect((await send('bob')).body.allowed).toBe(true);
      const signup = (ip: string) => post('/v1/check', { tenant: tenant.slug, endpoint: 'POST /v1/signup', ip });
      expect((await signup('2001:db8:1:2::1')).body.allowed).toBe(true);
      expect((await signup('2001:db8:1:2:ffff::9')).body.allowed).toBe(true);
      expect((await signup('2001:db8:1:2::77')).body.allowed).toBe(false);
      expect((await signup('2001:db8:1:3::1')).body.allowed).toBe(true);
      expect((await signup('203.0.113.7')).body.allowed).toBe(true);
      expect((await signup('::ffff:203.0.113.7')).body.allowed).toBe(true);
      expect((await signup('203.0.113.7')).body.allowed).toBe(false);
      expect((await post('/v1/check', { tenant: tenant.slug, endpoint: 'POST /v1/signup', ip: '203.0.113' })).status).toBe(400);
    });

    it('decides and counts a policy in shadow mode but never denies for it, saying it would have', async () => {
      await awayFromMinuteBoundary();
      const { tenant } = await tenantWithPolicies(100, [{ name: 'trial', method: 'GET', pattern: '/v1/search', mode: 'shadow', limit: 1 }]);
      const first = await post('/v1/check', { tenant: tenant.slug, endpoint: 'GET /v1/search' });
      expect(first.body).toMatchObject({ allowed: true, mode: 'shadow', wouldDeny: false, policy: 'trial' });
      const second = await post('/v1/check', { tenant: tenant.slug, endpoint: 'GET /v1/search' });
      expect(second.body).toMatchObject({ allowed: true, mode: 'shadow', wouldDeny: true, retryAfterMs: 0 });
      expect(second.body.headers['Retry-After']).toBeUndefined();
      // The tenant's own limit was charged for both: the request passed.
      expect(remaining(second)).toEqual([98, 0]);
      expect(String((await api.request('GET', '/metrics', { token: TEST_METRICS_TOKEN })).body)).toContain(`tollgate_decisions_total{tenant="${tenant.slug}",endpoint="trial",result="would_deny",mode="shadow"} 1`);
    });

    it('still enforces the tenant\'s own limits under a shadow policy', async () => {
      const { tenant } = await tenantWithPolicies(1, [{ name: 'trial', method: '*', pattern: '/*', mode: 'shadow', limit: 100 }]);
      expect((await post('/v1/check', { tenant: tenant.slug, endpoint: 'GET /a' })).body.allowed).toBe(true);
      const denied = await post('/v1/check', { tenant: tenant.slug, endpoint: 'GET /a' });
      expect(denied.body).toMatchObject({ allowed: false, mode: 'enforce' });
      expect(denied.body.wouldDeny).toBeUndefined();
    });

    it('applies nothing of a policy that is off', async () => {
      const { tenant } = await tenantWithPolicies(100, [{ name: 'paused', method: '*', pattern: '/*', mode: 'off', cost: 10, limit: 10 }]);
      const r = await post('/v1/check', { tenant: tenant.slug, endpoint: 'GET /a' });
      expect(r.body.policy).toBeUndefined();
      expect(remaining(r)).toEqual([99]);
    });
  });

  it('resets a daily quota at midnight in the tenant\'s time zone', async () => {
    // A calendar day is explicit (docs/adr/0014-calendar-windows-are-explicit.md): 86,400 s alone is a 24-hour window.
    const fixture = await createTenant(prisma, [{ name: 'daily', windowS: 86_400, limit: 5, calendar: 'day' }]);
    await prisma.tenant.update({ where: { id: fixture.tenant.id }, data: { timeZone: 'Pacific/Kiritimati' } });
    await inForce();
    const r = await post('/v1/check', { tenant: fixture.tenant.slug, endpoint: 'GET /x' });
    const local = new Intl.DateTimeFormat('en-GB', { timeZone: 'Pacific/Kiritimati', hour: 'numeric', minute: 'numeric', second: 'numeric', hourCycle: 'h23' }).format(new Date());
    const [h, m, s] = local.split(':').map(Number) as [number, number, number];
    const toMidnight = ((24 - h) * 3600 - m * 60 - s) * 1000;
    expect(Math.abs(r.body.limits[0].resetMs - toMidnight)).toBeLessThan(5_000);
  });

  describe('peek, refund, lease, batch', () => {
    it('peeks without charging, refunds what was charged, never above capacity', async () => {
      const { tenant } = await createTenant(prisma);
      await inForce();
      const body = { tenant: tenant.slug, endpoint: 'GET /x', cost: 3 };
      expect(remaining(await post('/v1/check/peek', body))).toEqual([7, 997]);
      expect(remaining(await post('/v1/check', body))).toEqual([7, 997]);
      expect(remaining(await post('/v1/check/peek', { ...body, cost: 1 }))).toEqual([6, 996]);
      expect(remaining(await post('/v1/check/refund', { ...body, cost: 2 }))).toEqual([9, 999]);
      expect(remaining(await post('/v1/check/refund', { ...body, cost: 5 }))).toEqual([10, 1000]);
    });

    it('leases as many units as every limit can give, up to max', async () => {
      const { tenant } = await createTenant(prisma);
      await inForce();
      const first = await post('/v1/check/lease', { tenant: tenant.slug, endpoint: 'GET /x', max: 6 });
      expect(first.body).toMatchObject({ allowed: true, granted: 6 });
      const second = await post('/v1/check/lease', { tenant: tenant.slug, endpoint: 'GET /x', max: 6 });
      expect(second.body).toMatchObject({ allowed: true, granted: 4 });
      expect(remaining(second)).toEqual([0, 990]);
      const none = await post('/v1/check/lease', { tenant: tenant.slug, endpoint: 'GET /x', max: 1 });
      expect(none.body).toMatchObject({ allowed: false, granted: 0 });
      expect((await post('/v1/check/lease', { tenant: tenant.slug, endpoint: 'GET /x', max: 0 })).status).toBe(400);
      expect((await post('/v1/check/lease', { tenant: tenant.slug, endpoint: 'GET /x', cost: 1 })).status).toBe(400);
    });

    it('decides a batch in order, each check on its own, a bad one failing alone', async () => {
      const { tenant } = await createTenant(prisma, [{ name: 'minute', windowS: 60, limit: 3 }]);
      await inForce();
      const ok = { tenant: tenant.slug, endpoint: 'GET /x' };
      const r = await post('/v1/check/batch', { checks: [ok, ok, { ...ok, cost: 0 }, ok, { tenant: 'no-such-tenant', endpoint: 'GET /x' }, ok] });
      expect(r.status).toBe(200);
      const results = r.body.results;
      expect(results.map((x: { allowed?: boolean }) => x.allowed)).toEqual([true, true, undefined, true, undefined, false]);
      expect(results.slice(0, 2).map((x: { limits: { remaining: number }[] }) => x.limits[0]!.remaining).sort()).toEqual([1, 2]);
      expect(results[2].error).toMatchObject({ code: 'validation_failed', field: 'checks.2.cost' });
      expect(results[4].error).toMatchObject({ code: 'not_found' });
      for (const body of [{ checks: [] }, { checks: Array(101).fill(ok) }, { checks: ok }]) {
        expect((await post('/v1/check/batch', body)).status).toBe(400);
      }
    });
  });
});
