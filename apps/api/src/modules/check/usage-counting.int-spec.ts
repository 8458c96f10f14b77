import { countsOf, activeTenantsKey, denialsKey, keyCountsOf, keyUsageOf, minuteOf, NO_TENANT, PostgresUsageWriter, usageKey, type UsageCount } from '@tollgate/usage';
import { describe, expect, it } from 'vitest';
import { useCheckApi } from '../../../../../test/support/context';
import { TEST_METRICS_TOKEN, TEST_REDIS_URL } from '../../../../../test/support/env';
import { awayFromMinuteBoundary, createServiceKey, createTenant, createTenantKey, publishRules, waitFor } from '../../../../../test/support/fixtures';

// Every decision is counted into usage (docs/adr/0015-usage-counting-and-rollups.md): those Redis makes by the limit
// script, in the call that charges them; those made without it (refused, degraded) by the node, flushed every
// USAGE_FLUSH_MS. These tests make decisions whose outcome they know and read the counts back from Redis.
describe('usage counting of /v1/check', () => {
  const ctx = useCheckApi({ USAGE_FLUSH_MS: '100' });
  const { check } = ctx;
  const inForce = async () => ctx.api.waitForRuleVersion((await publishRules(ctx.prisma, TEST_REDIS_URL)).version);
  const sorted = (rows: UsageCount[]) => [...rows].sort((a, b) => `${a.policyId}${a.result}${a.reason}`.localeCompare(`${b.policyId}${b.result}${b.reason}`));
  const usageOf = async (tenantId: string, minute: number) => sorted(countsOf(await ctx.redis.hgetall(usageKey(tenantId, minute))));
  /** Script calls this node has made for checks (each observed once in tollgate_decision_redis_seconds). */
  const scriptCalls = async () => {
    const text = String((await ctx.api.request('GET', '/metrics', { token: TEST_METRICS_TOKEN })).body);
    return Number(/^tollgate_decision_redis_seconds_count (\d+)/m.exec(text)?.[1] ?? 0);
  };

  it('counts allowed, denied, shadow would-deny and refused decisions per tenant, policy and reason, as answered', async () => {
    await awayFromMinuteBoundary(20_000);
    const { plan, tenant } = await createTenant(ctx.prisma, [{ name: 'minute', windowS: 60, limit: 6 }]);
    const search = await ctx.prisma.endpointPolicy.create({
      data: { planId: plan.id, name: 'search', method: 'GET', pattern: '/v1/search', cost: 1, scope: 'tenant', mode: 'enforce', limits: { create: [{ name: 'minute', windowS: 60, limit: 3 }] } },
    });
    const trial = await ctx.prisma.endpointPolicy.create({
      data: { planId: plan.id, name: 'trial', method: 'GET', pattern: '/v1/trial', cost: 1, scope: 'tenant', mode: 'shadow', limits: { create: [{ name: 'minute', windowS: 60, limit: 1 }] } },
    });
    const { tenant: suspended } = await createTenant(ctx.prisma);
    await ctx.prisma.tenant.update({ where: { id: suspended.id }, data: { status: 'suspended' } });
    const { key: expired } = await createTenantKey(ctx.prisma, tenant.id, { expiresAt: new Date(Date.now() - 1000) });
    await inForce();
    const minute = minuteOf(Date.now());

    const answers = [];
    for (let i = 0; i < 4; i += 1) answers.push(await check({ tenant: tenant.slug, endpoint: 'GET /v1/search', subject: `user-${i}` }));
    // A policy in shadow mode is decided with the tenant's limits in the check's one script call, would-deny or not.
    const callsBefore = await scriptCalls();
    answers.push(await check({ tenant: tenant.slug, endpoint: 'GET /v1/trial', subject: 'user-9' }));
    answers.push(await check({ tenant: tenant.slug, endpoint: 'GET /v1/trial', subject: 'user-9' }));
    expect((await scriptCalls()) - callsBefore).toBe(2);
    answers.push(await check({ tenant: tenant.slug, endpoint: 'GET /v1/items' }));
    answers.push(await check({ tenant: tenant.slug, endpoint: 'GET /v1/items' }));
    // Not decisions: a peek counts nothing.
    expect((await ctx.api.request('POST', '/v1/check/peek', { token: ctx.serviceKey, body: { tenant: tenant.slug, endpoint: 'GET /v1/items' } })).status).toBe(200);
    const refusals = [
      await check({ key: 'tg_test_not-a-key-of-anyone', endpoint: 'GET /v1/items' }),
      await check({ key: 'tg_test_not-a-key-of-anyone', endpoint: 'GET /v1/items' }),
      await check({ key: expired, endpoint: 'GET /v1/items' }),
      await check({ tenant: suspended.slug, endpoint: 'GET /v1/items' }),
    ];

    expect(answers.map((a) => [a.body.allowed, a.body.wouldDeny ?? null])).toEqual([
      [true, null], [true, null], [true, null], [false, null], // search: its minute (3) runs out
      [true, false], [true, true], // trial in shadow: the second would have been denied, and passed
      [true, null], [false, null], // the tenant's own minute (6) runs out: 3 + 2 + 1
    ]);
    expect(refusals.map((r) => r.body.reason)).toEqual(['key_invalid', 'key_invalid', 'key_expired', 'tenant_suspended']);

    // Refusals are counted by the node and written with its next flush.
    await waitFor(async () => (await ctx.redis.hlen(usageKey(suspended.id, minute))) > 0 && (await ctx.redis.hlen(usageKey(NO_TENANT, minute))) > 0);
    await waitFor(async () => (await usageOf(tenant.id, minute)).some((r) => r.result === 'refused'));
    expect(await usageOf(tenant.id, minute)).toEqual(sorted([
      { policyId: search.id, result: 'allowed', reason: '', decisions: 3, cost: 3 },
      { policyId: search.id, result: 'denied', reason: 'search-minute', decisions: 1, cost: 0 },
      { policyId: trial.id, result: 'allowed', reason: '', decisions: 1, cost: 1 },
      { policyId: trial.id, result: 'shadow_denied', reason: 'trial-minute', decisions: 1, cost: 1 },
      { policyId: null, result: 'allowed', reason: '', decisions: 1, cost: 1 },
      { policyId: null, result: 'denied', reason: 'minute', decisions: 1, cost: 0 },
      // An expired key still names its tenant.
      { policyId: null, result: 'refused', reason: 'key_expired', decisions: 1, cost: 0 },
    ]));
    expect(await usageOf(suspended.id, minute)).toEqual([{ policyId: null, result: 'refused', reason: 'tenant_suspended', decisions: 1, cost: 0 }]);
    // A key of no one is counted without a tenant (shared by all such checks).
    expect((await usageOf(NO_TENANT, minute)).find((r) => r.reason === 'key_invalid')?.decisions).toBeGreaterThanOrEqual(2);

    // The rollup finds the hashes through the minute's set of tenants, not by scanning keys.
    expect(await ctx.redis.smembers(activeTenantsKey(minute))).toEqual(expect.arrayContaining([tenant.id, suspended.id, NO_TENANT]));
    // Each hash expires (48 h) unless the rollup shortens it.
    expect(await ctx.redis.ttl(usageKey(tenant.id, minute))).toBeGreaterThan(47 * 3600);

    // Who is being limited: a sample of denials and would-denies, newest last.
    const samples = (await ctx.redis.xrange(denialsKey(tenant.id), '-', '+')).map(([, fields]) => new Map(Array.from({ length: fields.length / 2 }, (_, i) => [fields[2 * i]!, fields[2 * i + 1]!])));
    expect(samples.map((s) => [s.get('policy'), s.get('endpoint'), s.get('subject'), s.get('limit'), s.get('result')])).toEqual([
      [search.id, 'GET /v1/search', 'user-3', 'search-minute', 'denied'],
      [trial.id, 'GET /v1/trial', 'user-9', 'trial-minute', 'shadow_denied'],
      ['-', 'GET /v1/items', '', 'minute', 'denied'],
    ]);
  });

  it('counts every refusal once with its reason, under the tenant its key names (a key of no one under none), and as a call of its keys', async () => {
    await awayFromMinuteBoundary(20_000);
    const { tenant } = await createTenant(ctx.prisma);
    const other = await createTenant(ctx.prisma);
    const live = await createTenantKey(ctx.prisma, tenant.id);
    const revoked = await createTenantKey(ctx.prisma, tenant.id, { revoked: true });
    const expired = await createTenantKey(ctx.prisma, tenant.id, { expiresAt: new Date(Date.now() - 1000) });
    // A service key that may check the other tenant only.
    const scoped = await createServiceKey(ctx.prisma, [other.tenant.id]);
    const scopedId = (await ctx.prisma.apiKey.findFirstOrThrow({ where: { kind: 'service', scopedTenants: { some: { tenantId: other.tenant.id } } } })).id;
    await inForce();
    const minute = minuteOf(Date.now());
    const unknownBefore = (await usageOf(NO_TENANT, minute)).find((r) => r.reason === 'key_invalid')?.decisions ?? 0;

    const answers = [
      await check({ key: 'tg_test_t_nobody-has-this-one', endpoint: 'GET /v1/items' }),
      await check({ key: revoked.key, endpoint: 'GET /v1/items' }),
      await ctx.api.request('POST', '/v1/check/lease', { token: ctx.serviceKey, body: { key: revoked.key, endpoint: 'GET /v1/items', max: 5 } }),
      await check({ key: expired.key, endpoint: 'GET /v1/items' }),
      await ctx.api.request('POST', '/v1/check', { token: scoped, body: { key: live.key, endpoint: 'GET /v1/items' } }),
      await ctx.api.request('POST', '/v1/check', { token: scoped, body: { key: live.key, endpoint: 'GET /v1/items' } }),
    ];
    // A peek is not a decision: a call of the key, not a refusal.
    const peek = await ctx.api.request('POST', '/v1/check/peek', { token: ctx.serviceKey, body: { key: revoked.key, endpoint: 'GET /v1/items' } });
    expect(answers.map((a) => [a.status, a.body.reason])).toEqual([
      [200, 'key_invalid'], [200, 'key_invalid'], [200, 'key_invalid'], [200, 'key_expired'], [200, 'tenant_not_allowed'], [200, 'tenant_not_allowed'],
    ]);
    expect(peek.body.reason).toBe('key_invalid');
    // Only an answer to a service that may check the key's tenant names it; a key of no one, or of a tenant the
    // service may not check, says nothing about any tenant.
    expect(answers.map((a) => a.body.tenant ?? null)).toEqual([null, null, null, tenant.slug, null, null]);

    const refusedOf = (rows: UsageCount[]) => rows.filter((r) => r.result === 'refused');
    await waitFor(async () => refusedOf(await usageOf(tenant.id, minute)).reduce((n, r) => n + r.decisions, 0) === 5);
    expect(await usageOf(tenant.id, minute)).toEqual(sorted([
      // The revoked key: its check and its lease, under its tenant (the rule set keeps it with its tenant).
      { policyId: null, result: 'refused', reason: 'key_invalid', decisions: 2, cost: 0 },
      { policyId: null, result: 'refused', reason: 'key_expired', decisions: 1, cost: 0 },
      { policyId: null, result: 'refused', reason: 'tenant_not_allowed', decisions: 2, cost: 0 },
    ]));
    expect(await usageOf(other.tenant.id, minute)).toEqual([]);
    await waitFor(async () => ((await usageOf(NO_TENANT, minute)).find((r) => r.reason === 'key_invalid')?.decisions ?? 0) >= unknownBefore + 1);
    // Forward-auth without a client key is refused before any look-up, and counted all the same, under no tenant.
    const missingBefore = (await usageOf(NO_TENANT, minute)).find((r) => r.reason === 'key_missing')?.decisions ?? 0;
    const keyless = await ctx.api.request('GET', '/v1/forward-auth', { headers: { 'x-tollgate-key': ctx.serviceKey, 'x-forwarded-method': 'GET', 'x-forwarded-uri': '/x' } });
    expect([keyless.status, keyless.body.reason]).toEqual([401, 'key_missing']);
    await waitFor(async () => ((await usageOf(NO_TENANT, minute)).find((r) => r.reason === 'key_missing')?.decisions ?? 0) === missingBefore + 1);

    // Each key counts its calls where its tenant's usage is: the valid key used through a service that may not check
    // its tenant is used all the same; the revoked key's peek is a call, not a decision.
    const keys = keyCountsOf(await ctx.redis.hgetall(usageKey(tenant.id, minute)));
    expect(keys.get(live.id)).toEqual({ decisions: 2, denied: 2, other: 0 });
    expect(keys.get(revoked.id)).toEqual({ decisions: 2, denied: 2, other: 1 });
    expect(keys.get(expired.id)).toEqual({ decisions: 1, denied: 1, other: 0 });
    expect(keys.get(scopedId)).toEqual({ decisions: 2, denied: 2, other: 0 });

    // Written as the rollup writes a minute: rows under the tenant with their reasons, and the keys' last use.
    const hashes = new Map([[tenant.id, await ctx.redis.hgetall(usageKey(tenant.id, minute))]]);
    await new PostgresUsageWriter(ctx.prisma).writeMinute(
      minute,
      new Map([...hashes].map(([id, hash]) => [id, countsOf(hash)])),
      new Map([...hashes].map(([id, hash]) => [id, keyCountsOf(hash)])),
    );
    const rows = await ctx.prisma.usageMinute.findMany({ where: { tenantId: tenant.id, bucket: new Date(minute * 1000) }, orderBy: { reason: 'asc' } });
    expect(rows.map((r) => [r.result, r.reason, Number(r.decisions)])).toEqual([
      ['refused', 'key_expired', 1],
      ['refused', 'key_invalid', 2],
      ['refused', 'tenant_not_allowed', 2],
    ]);
    const used = await ctx.prisma.apiKey.findMany({ where: { id: { in: [live.id, revoked.id, expired.id] } }, select: { id: true, lastUsedAt: true } });
    expect(used.every((k) => k.lastUsedAt?.getTime() === minute * 1000)).toBe(true);
    expect((await keyUsageOf(ctx.prisma, [live.id])).get(live.id)?.last24h).toEqual({ decisions: 2, denied: 2, other: 0 });
  });
});
