import { REFUSAL_REASONS } from '@tollgate/domain';
import { REFUSAL_REASONS as SDK_REFUSAL_REASONS, TollgateClient } from '@tollgate/sdk';
import { describe, expect, it } from 'vitest';
import { useOperatorApi } from '../support/context';
import { TEST_REDIS_URL } from '../support/env';
import { createServiceKey, createTenant, createTenantKey, publishRules, waitFor } from '../support/fixtures';

// A refusal's `reason` is one closed list, REFUSAL_REASONS in the domain: the API answers each of them and no other,
// the SDK exports that list (its types are checked against the domain's by test/fixtures/sdk-consumer/contract.ts),
// and the OpenAPI document's enum is the same list (openapi-document.int-spec.ts).
describe('the reasons a check is refused for', () => {
  const ctx = useOperatorApi();

  it("are the domain's list: the API answers every one of them, on every check route, and no other", async () => {
    const { tenant } = await createTenant(ctx.prisma);
    const { tenant: suspended } = await createTenant(ctx.prisma);
    await ctx.prisma.tenant.update({ where: { id: suspended.id }, data: { status: 'suspended' } });
    const { tenant: other } = await createTenant(ctx.prisma);
    const live = await createTenantKey(ctx.prisma, tenant.id);
    const revoked = await createTenantKey(ctx.prisma, tenant.id, { revoked: true });
    const expired = await createTenantKey(ctx.prisma, tenant.id, { expiresAt: new Date(Date.now() - 1000) });
    const ofSuspended = await createTenantKey(ctx.prisma, suspended.id);
    const service = await createServiceKey(ctx.prisma);
    const scoped = await createServiceKey(ctx.prisma, [other.id]);
    const ruleSet = await publishRules(ctx.prisma, TEST_REDIS_URL);
    await waitFor(async () => (await ctx.api.request('GET', '/health')).body.ruleVersion >= ruleSet.version);

    const refusals: [token: string, target: { key: string } | { tenant: string }][] = [
      [service, { key: revoked.key }],
      [service, { key: 'tg_live_t_not_a_real_key' }],
      [service, { key: expired.key }],
      [service, { key: ofSuspended.key }],
      [service, { tenant: suspended.slug }],
      [scoped, { key: live.key }],
    ];
    const answered = new Set<unknown>();
    for (const [route, extra] of [['/v1/check', {}], ['/v1/check/peek', {}], ['/v1/check/lease', { max: 2 }]] as const) {
      for (const [token, target] of refusals) {
        const r = await ctx.api.request('POST', route, { token, body: { ...target, ...extra, endpoint: 'GET /v1/items' } });
        expect([r.status, r.body.allowed], `${route} ${JSON.stringify(target)}`).toEqual([200, false]);
        answered.add(r.body.reason);
      }
    }
    expect([...answered].sort()).toEqual([...REFUSAL_REASONS].sort());

    // The SDK's client hands the same reasons on, from the same list.
    expect(SDK_REFUSAL_REASONS).toEqual(REFUSAL_REASONS);
    const client = new TollgateClient({ baseUrl: ctx.api.url, serviceKey: scoped });
    expect(await client.check({ key: live.key, endpoint: 'GET /v1/items' })).toMatchObject({ allowed: false, reason: 'tenant_not_allowed' });
  });
});
