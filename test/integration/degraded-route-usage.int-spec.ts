import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { countsOf, degradedCauseOf, minuteOf, NO_TENANT, type RouteCount, routeCountsOf, usageKey } from '@tollgate/usage';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startRedisServer } from '../../scripts/lib/redis-server.mjs';
import { startApi, type TestApi } from '../support/api';
import { TEST_DATABASE_URL } from '../support/env';
import { awayFromMinuteBoundary, createFailureModeTenant, createServiceKey, createTenantKey, publishRules, waitFor } from '../support/fixtures';
import { UsageRecorder } from '../../apps/api/src/modules/check/usage-recorder';
import { generateKey } from '../../apps/api/src/modules/keys/key-format';

type RedisServer = Awaited<ReturnType<typeof startRedisServer>>;

// Decisions Redis did not make (it is stopped: a redis-server of this file's own) are counted per route by the node
// that answered them, with the result the client got and the failure mode that decided
// (docs/adr/0015-usage-counting-and-rollups.md): `degraded_allowed` and `degraded_denied` under the check's route, reason `<mode>:<cause>`; refused
// checks (an expired key, a key of no one) under their route too, in the tenant's hash or the one of no tenant. The
// node writes them once Redis is back, in the tenant's hash of the minute, as the limit script writes its own.
describe('usage per route while Redis is down', () => {
  let prisma: PrismaClient;
  let server: RedisServer;
  let api: TestApi;
  let service: string;
  let tenant: { id: string; slug: string };
  let expired: string;

  beforeAll(async () => {
    prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    server = await startRedisServer('tollgate-route-degraded');
    const fixture = await createFailureModeTenant(prisma, 10);
    tenant = fixture.tenant;
    service = await createServiceKey(prisma);
    ({ key: expired } = await createTenantKey(prisma, tenant.id, { expiresAt: new Date(Date.now() - 1000) }));
    const { version } = await publishRules(prisma, server.url);
    api = await startApi({
      REDIS_URL: server.url,
      DECISION_DEADLINE_MS: '50',
      BREAKER_FAILURES: '3',
      BREAKER_COOLDOWN_MS: '300',
      DEFAULT_FAILURE_MODE: 'open',
      LOCAL_FAILOVER_NODES: '2',
      // Written when the test says (once Redis is back), not on a timer.
      USAGE_FLUSH_MS: '3600000',
    });
    await api.waitForRuleVersion(version);
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await server?.stop();
    await prisma?.$disconnect();
  });

  const check = (body: Record<string, unknown>) => api.request('POST', '/v1/check', { token: service, body });
  const sorted = (rows: RouteCount[]) => [...rows].sort((a, b) => `${a.route}|${a.result}|${a.reason}`.localeCompare(`${b.route}|${b.result}|${b.reason}`));

  it('counts degraded and refused checks under their route, with the answer the client got, once Redis is back', async () => {
    await awayFromMinuteBoundary(30_000);
    const minute = minuteOf(Date.now());
    const port = server.port;
    // Every connection of the node handles its own errors: none is printed as ioredis's unhandled error event.
    const printed = vi.spyOn(console, 'error');
    await server.stop();

    // open (no policy): passes, degraded; the same route however the check spells it.
    for (const endpoint of ['GET /v1/items', 'GET /v1/items', 'get /v1//items/?page=2']) {
      const r = await check({ tenant: tenant.slug, endpoint });
      expect(r.body, endpoint).toMatchObject({ allowed: true, degraded: true });
    }
    // closed: 503.
    for (let i = 0; i < 2; i += 1) expect((await check({ tenant: tenant.slug, endpoint: 'GET /closed' })).status).toBe(503);
    // local: this node's share, 10 ÷ 2 nodes = 5, then refused.
    const local = [];
    for (let i = 0; i < 7; i += 1) local.push((await check({ tenant: tenant.slug, endpoint: 'GET /local' })).body);
    expect(local.map((d) => [d.allowed, d.degraded])).toEqual([...Array(5).fill([true, true]), [false, true], [false, true]]);
    // Refused without Redis: an expired key of the tenant, and a key of no one.
    expect((await check({ key: expired, endpoint: 'GET /v1/items' })).body.reason).toBe('key_expired');
    expect((await check({ key: generateKey('tenant', 'test').key, endpoint: 'POST /v1/orders' })).body.reason).toBe('key_invalid');

    const unhandled = printed.mock.calls.filter((args) => String(args[0]).includes('Unhandled error event'));
    printed.mockRestore();
    expect(unhandled).toEqual([]);

    // Redis back (empty, on the same port): the node writes what it counted.
    server = await startRedisServer('tollgate-route-degraded', port);
    const redis = new Redis(server.url);
    try {
      const keys = [usageKey(tenant.id, minute), usageKey(NO_TENANT, minute)];
      await waitFor(async () => {
        await api.app.get(UsageRecorder).flush();
        return (await redis.exists(...keys)) === keys.length;
      }, 20_000, 200);
      const hash = await redis.hgetall(keys[0]!);

      // Each degraded route count names the failure mode and why Redis did not decide; cut to the mode here.
      const routes = routeCountsOf(hash);
      expect(routes.filter((r) => r.result.startsWith('degraded') && degradedCauseOf(r.reason) === null)).toEqual([]);
      const byMode = new Map<string, RouteCount>();
      for (const r of routes) {
        const row = { ...r, reason: r.result.startsWith('degraded') ? r.reason.split(':')[0]! : r.reason };
        const k = `${row.route}|${row.result}|${row.reason}`;
        byMode.set(k, { ...row, decisions: (byMode.get(k)?.decisions ?? 0) + row.decisions });
      }
      expect(sorted([...byMode.values()])).toEqual(sorted([
        { route: 'GET /v1/items', result: 'degraded_allowed', reason: 'open', decisions: 3 },
        { route: 'GET /v1/items', result: 'refused', reason: 'key_expired', decisions: 1 },
        { route: 'GET /closed', result: 'degraded_denied', reason: 'closed', decisions: 2 },
        { route: 'GET /local', result: 'degraded_allowed', reason: 'local', decisions: 5 },
        { route: 'GET /local', result: 'degraded_denied', reason: 'local', decisions: 2 },
      ]));
      // Every decision is in a route, once: the tenant's routes add up to its decisions, result by result.
      const perResult = (rows: { result: string; decisions: number }[]) => {
        const sums = new Map<string, number>();
        for (const r of rows) sums.set(r.result, (sums.get(r.result) ?? 0) + r.decisions);
        return sums;
      };
      expect(perResult(routes)).toEqual(perResult(countsOf(hash)));

      // The key of no one: in the hash of no tenant, under its route.
      const none = await redis.hgetall(keys[1]!);
      expect(routeCountsOf(none)).toEqual([{ route: 'POST /v1/orders', result: 'refused', reason: 'key_invalid', decisions: 1 }]);
      expect(perResult(routeCountsOf(none))).toEqual(perResult(countsOf(none)));
    } finally {
      redis.disconnect();
    }
  }, 60_000);
});
