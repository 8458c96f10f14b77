import { KEY_USAGE_NO_TENANT, keyCountsOf, minuteOf, NO_TENANT, PostgresUsageWriter, UsageRollup, usageKey } from '@tollgate/usage';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi } from '../../../../../test/support/api';
import { useOperatorApi } from '../../../../../test/support/context';
import { awayFromMinuteBoundary, createTenant, createUser } from '../../../../../test/support/fixtures';
import { UsageRecorder } from '../check/usage-recorder';

// Service and tenant keys are checked against the rule set in memory, never Postgres: what each key did, and when it
// was last used, come from usage (docs/adr/0015-usage-counting-and-rollups.md). The node counts each key's calls into
// the tenant's minute hash with its other counts; the rollup writes them per key and sets the key's last use. A
// database and Redis database of this file's own: the rollup here reads every tenant of the minute.
describe('what keys did, and when they were last used, from usage', () => {
  const ctx = useOperatorApi({ USAGE_FLUSH_MS: '3600000' }, { ownStores: ['key_usage', 13] });
  let redis: Redis;
  let fixture: Awaited<ReturnType<typeof createTenant>>;

  beforeAll(async () => {
    redis = new Redis(ctx.redisUrl);
    fixture = await createTenant(ctx.prisma, [{ name: 'minute', windowS: 60, limit: 4 }]);
  });
  afterAll(() => redis?.disconnect());

  const newKey = async (body: Record<string, unknown>) => {
    const r = await ctx.api.request('POST', '/v1/admin/keys', { token: ctx.session, body: { name: 'used', ...body } });
    expect(r.status).toBe(201);
    await ctx.api.waitForRuleVersion(r.body.ruleVersion);
    return { key: r.body.key as string, id: r.body.apiKey.id as string };
  };
  const keyView = async (id: string) => (await ctx.api.request('GET', `/v1/admin/keys/${id}`, { token: ctx.session })).body;
  const check = (token: string, target: Record<string, string>, path = '/v1/check') =>
    ctx.api.request('POST', path, { token, body: { endpoint: 'GET /x', ...target } });
  /**
   * Rolls up every minute through the current one. The worker waits for a minute to close; this test does not wait
   * for it, which a negative grace allows: the rows are absolute, so the worker's later rollup of the minute writes
   * the same ones.
   */
  const rollUp = () => new UsageRollup(redis, new PostgresUsageWriter(ctx.prisma), { graceS: -60, firstRunLookbackS: 300 }).run();

  it('counts each key’s decisions, denials and other calls per tenant, and the rollup sets its last use and counts', async () => {
    const service = await newKey({ kind: 'service', tenants: [fixture.tenant.id] });
    const gateway = await newKey({ kind: 'service' });
    const inBody = await newKey({ kind: 'tenant', tenantId: fixture.tenant.id });
    const atGateway = await newKey({ kind: 'tenant', tenantId: fixture.tenant.id });
    const unused = await newKey({ kind: 'service' });
    for (const { id } of [service, gateway, inBody, atGateway, unused]) expect((await keyView(id)).lastUsedAt).toBeNull();

    await awayFromMinuteBoundary(10_000);
    const minute = minuteOf(Date.now());
    // The tenant's minute allows 4: three checks and a forward-auth pass, the fifth is denied.
    expect((await check(service.key, { tenant: fixture.tenant.slug })).body.allowed).toBe(true);
    expect((await check(service.key, { key: inBody.key })).body.allowed).toBe(true);
    expect((await check(service.key, { key: inBody.key })).body.allowed).toBe(true);
    const forwarded = await ctx.api.request('GET', '/v1/forward-auth', {
      headers: { 'x-tollgate-key': gateway.key, 'x-api-key': atGateway.key, 'x-forwarded-method': 'GET', 'x-forwarded-uri': '/x' },
    });
    expect(forwarded.status).toBe(200);
    expect((await check(service.key, { key: inBody.key })).body.allowed).toBe(false);
    // A peek is a use of the key, not a decision; a key of no one is refused, without a tenant.
    expect((await check(service.key, { tenant: fixture.tenant.slug }, '/v1/check/peek')).status).toBe(200);
    expect((await check(service.key, { key: 'tg_test_not-a-key-of-anyone' })).body.reason).toBe('key_invalid');

    await ctx.api.app.get(UsageRecorder).flush();
    expect(keyCountsOf(await redis.hgetall(usageKey(fixture.tenant.id, minute)))).toEqual(new Map([
      [service.id, { decisions: 4, denied: 1, other: 1 }],
      [inBody.id, { decisions: 3, denied: 1, other: 0 }],
      [gateway.id, { decisions: 1, denied: 0, other: 0 }],
      [atGateway.id, { decisions: 1, denied: 0, other: 0 }],
    ]));
    expect(keyCountsOf(await redis.hgetall(usageKey(NO_TENANT, minute))).get(service.id)).toEqual({ decisions: 1, denied: 1, other: 0 });

    await rollUp();
    const rows = await ctx.prisma.$queryRaw<{ key_id: string; tenant_id: string; decisions: bigint; denied: bigint; other: bigint }[]>`
      SELECT key_id::text, tenant_id::text, decisions, denied, other FROM key_usage_minute WHERE key_id = ${service.id}::uuid ORDER BY tenant_id`;
    expect(rows).toEqual([
      { key_id: service.id, tenant_id: KEY_USAGE_NO_TENANT, decisions: 1n, denied: 1n, other: 0n },
      { key_id: service.id, tenant_id: fixture.tenant.id, decisions: 4n, denied: 1n, other: 1n },
    ].sort((a, b) => a.tenant_id.localeCompare(b.tenant_id)));

    // The admin API shows each key's last use (to the minute) and its calls.
    for (const { id } of [service, gateway, inBody, atGateway]) expect((await keyView(id)).lastUsedAt).toBe(new Date(minute * 1000).toISOString());
    expect((await keyView(unused.id)).lastUsedAt).toBeNull();
    expect((await keyView(service.id)).usage).toEqual({ last24h: { decisions: 5, denied: 2, other: 1 }, last30d: { decisions: 5, denied: 2, other: 1 } });
    expect((await keyView(unused.id)).usage).toEqual({ last24h: { decisions: 0, denied: 0, other: 0 }, last30d: { decisions: 0, denied: 0, other: 0 } });
    const listed = await ctx.api.request('GET', `/v1/admin/keys?kind=tenant&tenantId=${fixture.tenant.id}`, { token: ctx.session });
    expect(new Map(listed.body.items.map((k: { id: string; usage: unknown }) => [k.id, k.usage]))).toEqual(new Map([
      [inBody.id, { last24h: { decisions: 3, denied: 1, other: 0 }, last30d: { decisions: 3, denied: 1, other: 0 } }],
      [atGateway.id, { last24h: { decisions: 1, denied: 0, other: 0 }, last30d: { decisions: 1, denied: 0, other: 0 } }],
    ]));

    // The tenant sees its own keys' calls too.
    const tenantSession = await ctx.api.login(await createUser(ctx.prisma, 'tenant', fixture.tenant.id));
    const own = await ctx.api.request('GET', '/v1/tenant/keys', { token: tenantSession });
    expect(own.body.items.find((k: { id: string }) => k.id === inBody.id).usage.last24h).toEqual({ decisions: 3, denied: 1, other: 0 });
  });

  it('writes the calls it counted when the node shuts down', async () => {
    // A node that would not flush for an hour (as the one above): only its last flush on shutdown can record them.
    const node = await startApi({ DATABASE_URL: ctx.databaseUrl, REDIS_URL: ctx.redisUrl, USAGE_FLUSH_MS: '3600000' });
    const service = await newKey({ kind: 'service' });
    await node.waitForRuleVersion((await ctx.api.request('GET', '/health')).body.ruleVersion);
    await awayFromMinuteBoundary(5_000);
    const minute = minuteOf(Date.now());
    expect((await node.request('POST', '/v1/check', { token: service.key, body: { tenant: fixture.tenant.slug, endpoint: 'GET /y' } })).status).toBe(200);
    await node.close();
    expect(keyCountsOf(await redis.hgetall(usageKey(fixture.tenant.id, minute))).get(service.id)?.decisions).toBe(1);
  });
});
