import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../support/context';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/env';
import { awayFromMinuteBoundary, createServiceKey, createTenant, publishRules, waitFor } from '../support/fixtures';
import { proxiedDatabase, type TcpProxy } from '../support/tcp-proxy';

// Postgres down → enforcement answers as before; admin writes get 503; after
// recovery, changes propagate again. The node reaches Postgres through a proxy the test cuts.
describe('Postgres down', () => {
  let proxy: TcpProxy;
  // Registered before the API's: it runs after the API has closed.
  afterAll(async () => {
    await proxy?.close();
  });
  const ctx = useOperatorApi({}, {
    startEnv: async () => {
      const proxied = await proxiedDatabase(TEST_DATABASE_URL);
      proxy = proxied.proxy;
      return { DATABASE_URL: proxied.databaseUrl };
    },
  });
  let key: string;
  let fixture: Awaited<ReturnType<typeof createTenant>>;

  beforeAll(async () => {
    fixture = await createTenant(ctx.prisma);
    key = await createServiceKey(ctx.prisma);
    const { version } = await publishRules(ctx.prisma, TEST_REDIS_URL);
    await ctx.api.waitForRuleVersion(version);
  });

  const check = (subject: string) =>
    ctx.api.request('POST', '/v1/check', { token: key, body: { tenant: fixture.tenant.slug, endpoint: 'GET /x', subject } });
  const minute = () => fixture.plan.limits.find((l) => l.name === 'minute')!;
  const patch = (limit: number) =>
    ctx.api.request('PATCH', `/v1/admin/plans/${fixture.plan.id}/limits/${minute().id}`, { token: ctx.session, body: { limit } });

  it('keeps enforcing, refuses admin writes with 503, and takes changes again after recovery', async () => {
    await awayFromMinuteBoundary();
    await proxy.cut();

    for (let i = 0; i < 10; i += 1) expect((await check('pg-down')).body.allowed).toBe(true);
    const denied = await check('pg-down');
    expect(denied.status).toBe(200);
    expect(denied.body.allowed).toBe(false);

    const refused = await patch(50);
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('database_unavailable');
    expect(refused.headers.get('retry-after')).toBeTruthy();
    expect((await ctx.api.request('GET', '/health')).status).toBe(503);

    await proxy.restore();
    await waitFor(async () => (await patch(50)).status === 200, 10_000, 200);
    await waitFor(async () => (await check('pg-down')).body.allowed === true, 2_000);
  });
});
