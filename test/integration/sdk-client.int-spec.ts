import { AppError } from '@tollgate/domain';
import { beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../support/context';
import { TEST_REDIS_URL } from '../support/env';
import { createServiceKey, createTenant, createTenantKey, publishRules } from '../support/fixtures';
import { TollgateClient, TollgateError } from '@tollgate/sdk';

describe('TollgateClient against a real API', () => {
  const ctx = useOperatorApi();
  let client: TollgateClient;
  let tenant: string;

  beforeAll(async () => {
    ({ tenant: { slug: tenant } } = await createTenant(ctx.prisma, [{ name: 'minute', windowS: 60, limit: 2 }]));
    const key = await createServiceKey(ctx.prisma);
    const ruleSet = await publishRules(ctx.prisma, TEST_REDIS_URL);
    await ctx.api.waitForRuleVersion(ruleSet.version);
    client = new TollgateClient({ baseUrl: `${ctx.api.url}/`, serviceKey: key });
  });

  it('returns decisions, a denial as a value', async () => {
    expect((await client.check({ tenant, endpoint: 'GET /x', subject: 's' })).allowed).toBe(true);
    expect((await client.check({ tenant, endpoint: 'GET /x', subject: 's' })).allowed).toBe(true);
    const denied = await client.check({ tenant, endpoint: 'GET /x', subject: 's' });
    expect(denied.allowed).toBe(false);
    expect(Number(denied.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
  });

  it('throws the API\'s stable error code', async () => {
    await expect(client.check({ tenant, endpoint: 'GET /x', cost: 3 })).rejects.toMatchObject({ code: 'cost_exceeds_capacity', status: 422 });
    await expect(client.check({ tenant: 'nobody-here', endpoint: 'GET /x' })).rejects.toMatchObject({ code: 'not_found' });
    const anonymous = new TollgateClient({ baseUrl: ctx.api.url, serviceKey: 'tg_test_wrong' });
    await expect(anonymous.check({ tenant, endpoint: 'GET /x' })).rejects.toMatchObject({ code: 'unauthenticated' });
  });

  it('gives up after its deadline when the API does not answer', async () => {
    const silent = new TollgateClient({ baseUrl: 'http://127.0.0.1:9', serviceKey: 'x', timeoutMs: 50,
      fetch: (_url, init) => new Promise((_, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason))) });
    const err = await silent.check({ tenant, endpoint: 'GET /x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toBeInstanceOf(TollgateError);
    expect(err).toMatchObject({ code: 'internal', unavailable: true, status: 503 });
  });

  it('fails open when asked: a degraded pass that claims no limits', async () => {
    const unreachable = new TollgateClient({ baseUrl: 'http://127.0.0.1:9', serviceKey: 'x', timeoutMs: 200, onError: 'open' });
    expect(await unreachable.check({ tenant, endpoint: 'GET /x' })).toEqual({
      allowed: true, mode: 'enforce', retryAfterMs: 0, ruleVersion: 0, limits: [], headers: {}, degraded: true, reason: 'tollgate_unavailable',
    });
    // A 4xx is the caller's mistake, not an outage: never failed open.
    const open = new TollgateClient({ baseUrl: ctx.api.url, serviceKey: 'tg_test_wrong', onError: 'open' });
    await expect(open.check({ tenant, endpoint: 'GET /x' })).rejects.toMatchObject({ code: 'unauthenticated', unavailable: false });
  });

  it('peeks, refunds, leases and batches against the real API, and checks by the tenant\'s key', async () => {
    const { tenant: fresh } = await createTenant(ctx.prisma, [{ name: 'minute', windowS: 60, limit: 10 }]);
    const { key } = await createTenantKey(ctx.prisma, fresh.id);
    const ruleSet = await publishRules(ctx.prisma, TEST_REDIS_URL);
    await ctx.api.waitForRuleVersion(ruleSet.version);
    const at = { tenant: fresh.slug, endpoint: 'GET /x' };
    expect((await client.peek({ ...at, cost: 4 })).limits[0]?.remaining).toBe(6);
    expect((await client.check({ ...at, cost: 4 })).limits[0]?.remaining).toBe(6);
    expect((await client.refund({ ...at, cost: 1 })).limits[0]?.remaining).toBe(7);
    expect(await client.lease({ ...at, max: 5 })).toMatchObject({ allowed: true, granted: 5 });
    const batch = await client.batch([{ ...at, cost: 2 }, { ...at, cost: 1 }, { key, endpoint: 'GET /x' }]);
    expect(batch.results.map((r) => ('allowed' in r ? r.allowed : r.error.code))).toEqual([true, false, false]);
    expect((await client.check({ key, endpoint: 'GET /x' })).tenant).toBe(fresh.slug);
    expect(await client.check({ key: 'tg_test_t_nobody', endpoint: 'GET /x' })).toMatchObject({ allowed: false, reason: 'key_invalid' });
    const many = Array.from({ length: 101 }, () => at);
    await expect(client.batch(many)).rejects.toMatchObject({ code: 'validation_failed', field: 'checks' });
  });
});
