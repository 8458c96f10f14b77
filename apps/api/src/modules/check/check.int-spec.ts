import { beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../../../../../test/support/context';
import { TEST_REDIS_URL } from '../../../../../test/support/env';
import { awayFromMinuteBoundary, createServiceKey, createTenant, publishRules, waitFor } from '../../../../../test/support/fixtures';

describe('POST /v1/check', () => {
  const ctx = useOperatorApi();
  let key: string;
  let scopedKey: string;
  let tenant: string;
  let other: string;

  beforeAll(async () => {
    const scoped = await createTenant(ctx.prisma);
    tenant = scoped.tenant.slug;
    ({ tenant: { slug: other } } = await createTenant(ctx.prisma));
    key = await createServiceKey(ctx.prisma);
    scopedKey = await createServiceKey(ctx.prisma, [scoped.tenant.id]);
    const ruleSet = await publishRules(ctx.prisma, TEST_REDIS_URL);
    await ctx.api.waitForRuleVersion(ruleSet.version);
  });

  const check = (body: unknown, token = key, headers?: Record<string, string>) =>
    ctx.api.request('POST', '/v1/check', { token, body, headers });

  /** A tenant of its own (plan: 10 a minute, 1000 a day), in force on the API: tests that count never share one. */
  const freshTenant = async () => {
    const { tenant: t } = await createTenant(ctx.prisma);
    const ruleSet = await publishRules(ctx.prisma, TEST_REDIS_URL);
    await ctx.api.waitForRuleVersion(ruleSet.version);
    return t.slug;
  };

  describe('happy', () => {
    it('allows the plan\'s 10 per minute for the tenant as a whole, then denies with Retry-After rounded up and the headers', async () => {
      await awayFromMinuteBoundary();
      const results = [];
      for (let i = 0; i < 11; i += 1) results.push(await check({ tenant, endpoint: 'GET /v1/items', subject: i % 2 ? 'alice' : 'bob' }));
      expect(results.map((r) => r.status)).toEqual(Array(11).fill(200));
      expect(results.slice(0, 10).every((r) => r.body.allowed === true)).toBe(true);
      const denied = results[10]!;
      expect(denied.body).toMatchObject({ allowed: false, mode: 'enforce' });
      expect(denied.body.limits.map((l: { name: string }) => l.name)).toEqual(['minute', 'daily']);
      const retryAfter = Number(denied.body.headers['Retry-After']);
      expect(retryAfter).toBe(Math.ceil(denied.body.retryAfterMs / 1000));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(denied.headers.get('retry-after')).toBe(String(retryAfter));
      expect(denied.body.headers['X-RateLimit-Limit']).toBe('10');
      expect(denied.body.headers['X-RateLimit-Remaining']).toBe('0');
      expect(Number(denied.body.headers['X-RateLimit-Reset'])).toBeGreaterThan(Date.now() / 1000);
      // The plan's quota is the tenant's: another subject shares it (per-subject limits come from endpoint policies).
      expect((await check({ tenant, endpoint: 'GET /v1/items', subject: 'carol' })).body.allowed).toBe(false);
      // And another tenant has its own.
      expect((await check({ tenant: other, endpoint: 'GET /v1/items', subject: 'alice' })).body.allowed).toBe(true);
    });

    it('charges the cost against every limit', async () => {
      const r = await check({ tenant: await freshTenant(), endpoint: 'POST /v1/messages', subject: 'carol', cost: 4 });
      expect(r.body.allowed).toBe(true);
      expect(r.body.limits.map((l: { remaining: number }) => l.remaining)).toEqual([6, 996]);
    });

    it('treats a subject with braces and colons as data: a normal decision', async () => {
      const r = await check({ tenant: await freshTenant(), endpoint: 'GET /x', subject: '{evil}:tg:{other}' });
      expect(r.status).toBe(200);
      expect(r.body.allowed).toBe(true);
    });
  });

  describe('errors', () => {
    it.each([
      ['negative', -1],
      ['zero', 0],
      ['fractional', 1.5],
      ['a string', '3'],
      ['above the maximum', 1_000_001],
    ])('refuses a cost that is %s with 400 naming the field, and charges nothing', async (_label, cost) => {
      const fresh = await freshTenant();
      const r = await check({ tenant: fresh, endpoint: 'GET /fresh', cost });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_failed', field: 'cost' });
      const after = await check({ tenant: fresh, endpoint: 'GET /fresh' });
      expect(after.body.limits[0].remaining).toBe(9);
    });

    it('answers 422 cost_exceeds_capacity for a cost above a limit', async () => {
      const r = await check({ tenant: await freshTenant(), endpoint: 'GET /x', cost: 11 });
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe('cost_exceeds_capacity');
    });

    it.each([
      ['missing endpoint', { subject: 'x' }, 'endpoint'],
      ['endpoint over 256 bytes', { endpoint: `GET /${'é'.repeat(130)}` }, 'endpoint'],
      ['subject with a control character', { endpoint: 'GET /x', subject: 'a\u0007b' }, 'subject'],
      ['empty subject', { endpoint: 'GET /x', subject: '' }, 'subject'],
      ['unknown field', { endpoint: 'GET /x', tenantId: 'x' }, undefined],
    ])('refuses %s with 400', async (_label, body, field) => {
      const r = await check({ tenant, ...body });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
      if (field) expect(r.body.error.field).toBe(field);
    });

    it('answers the same 404 for an unknown tenant and for a tenant the key may not see', async () => {
      const unknown = await check({ tenant: 'no-such-tenant', endpoint: 'GET /x' });
      const hidden = await check({ tenant: other, endpoint: 'GET /x' }, scopedKey);
      expect(unknown.status).toBe(404);
      expect(hidden.status).toBe(404);
      expect(hidden.body).toEqual(unknown.body);
    });

    it('answers 415 for text/plain, 400 for broken JSON and 413 for an oversized body', async () => {
      expect((await check('{"tenant":"x"}', key, { 'content-type': 'text/plain' })).status).toBe(415);
      const broken = await check('{"tenant":', key);
      expect(broken.status).toBe(400);
      expect(broken.body.error.code).toBe('validation_failed');
      const huge = await check({ tenant, endpoint: 'GET /x', subject: 'x'.repeat(70_000) });
      expect(huge.status).toBe(413);
      expect(huge.body.error.code).toBe('payload_too_large');
    });
  });

  describe('security', () => {
    it('answers 401 without a key, with a malformed key and with an unknown key', async () => {
      for (const token of [undefined, 'not-a-key', 'tg_test_unknownunknownunknown']) {
        const r = await ctx.api.request('POST', '/v1/check', { token, body: { tenant, endpoint: 'GET /x' } });
        expect(r.status).toBe(401);
        expect(r.body.error.code).toBe('unauthenticated');
      }
    });

    it('answers 403 to an operator session on the enforcement route', async () => {
      const r = await check({ tenant, endpoint: 'GET /x' }, ctx.session);
      expect(r.status).toBe(403);
    });

    it('stops accepting a revoked key once the rule set without it is in force', async () => {
      const doomed = await createServiceKey(ctx.prisma);
      let ruleSet = await publishRules(ctx.prisma, TEST_REDIS_URL);
      await ctx.api.waitForRuleVersion(ruleSet.version);
      const fresh = await freshTenant();
      expect((await check({ tenant: fresh, endpoint: 'GET /x' }, doomed)).status).toBe(200);
      await ctx.prisma.apiKey.updateMany({ where: { prefix: doomed.slice(0, 12) }, data: { revokedAt: new Date() } });
      ruleSet = await publishRules(ctx.prisma, TEST_REDIS_URL);
      await waitFor(async () => (await check({ tenant: fresh, endpoint: 'GET /x' }, doomed)).status === 401);
    });
  });
});
