import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { countsOf, minuteOf, usageKey } from '@tollgate/usage';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type TestApi } from '../support/api';
import { TEST_DATABASE_URL, TEST_METRICS_TOKEN, TEST_REDIS_URL } from '../support/env';
import { awayFromMinuteBoundary, createServiceKey, createTenant, publishRules, waitFor } from '../support/fixtures';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';

// With Redis down or slow, every check is answered by its policy's failure
// mode without waiting for Redis (open: pass, degraded; closed: 503 with Retry-After; local: this node's share,
// limit ÷ nodes), and once Redis is back decisions are Redis-backed again within seconds. The API reaches Redis
// through a TCP proxy the test cuts, restores and slows down.
describe('when Redis is down or slow', () => {
  let prisma: PrismaClient;
  let proxy: TcpProxy;
  let api: TestApi;
  let service: string;
  let tenant: string;
  let tenantId: string;
  let policyIds: Map<string, string>;

  beforeAll(async () => {
    prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    const redis = new URL(TEST_REDIS_URL);
    proxy = await startTcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
    const viaProxy = new URL(TEST_REDIS_URL);
    viaProxy.port = String(proxy.port);
    const fixture = await createTenant(prisma, [{ name: 'minute', windowS: 60, limit: 10 }]);
    tenant = fixture.tenant.slug;
    tenantId = fixture.tenant.id;
    for (const [name, pattern, failureMode] of [
      ['shut', '/closed', 'closed'],
      ['near', '/local', 'local'],
    ] as const) {
      await prisma.endpointPolicy.create({
        data: { planId: fixture.plan.id, name, method: 'GET', pattern, failureMode, limits: { create: [{ name: 'minute', windowS: 60, limit: 10 }] } },
      });
    }
    policyIds = new Map((await prisma.endpointPolicy.findMany({ where: { planId: fixture.plan.id } })).map((p) => [p.name, p.id]));
    service = await createServiceKey(prisma);
    const { version } = await publishRules(prisma, TEST_REDIS_URL);
    api = await startApi({
      REDIS_URL: viaProxy.toString(),
      DECISION_DEADLINE_MS: '50',
      BREAKER_FAILURES: '3',
      BREAKER_COOLDOWN_MS: '300',
      DEFAULT_FAILURE_MODE: 'open',
      LOCAL_FAILOVER_NODES: '2',
      USAGE_FLUSH_MS: '200',
    });
    await api.waitForRuleVersion(version);
  });
  afterAll(async () => {
    await api?.close();
    await proxy?.close();
    await prisma.$disconnect();
  });

  const check = (endpoint: string) => api.request('POST', '/v1/check', { token: service, body: { tenant, endpoint } });
  const redisBacked = async (endpoint: string) => {
    const r = await check(endpoint);
    return r.status === 200 && r.body.degraded === undefined && r.body.limits.length > 0;
  };

  it('answers every check in its failure mode while Redis is down, and from Redis again once it is back', async () => {
    await awayFromMinuteBoundary(20_000);
    const minute = minuteOf(Date.now());
    expect(await redisBacked('GET /open')).toBe(true);
    await proxy.cut();

    // open (no policy: DEFAULT_FAILURE_MODE): passes, says it is degraded, claims no limits.
    for (let i = 0; i < 5; i += 1) {
      const r = await check('GET /open');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ allowed: true, degraded: true, limits: [] });
    }
    // closed: 503 with the error envelope and Retry-After in whole seconds.
    const shut = await check('GET /closed');
    expect(shut.status).toBe(503);
    expect(shut.body.error.code).toBe('redis_unavailable');
    expect(Number(shut.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // local: this node's share of every limit, 10 ÷ 2 nodes = 5, counted in memory.
    const local = [];
    for (let i = 0; i < 7; i += 1) local.push((await check('GET /local')).body);
    expect(local.map((d) => d.allowed)).toEqual([true, true, true, true, true, false, false]);
    expect(local.every((d) => d.degraded === true)).toBe(true);
    expect(local[0].limits.map((l: { name: string; limit: number }) => `${l.name}=${l.limit}`)).toEqual(['minute=5', 'near-minute=5']);
    expect(Number(local[5].headers['Retry-After'])).toBeGreaterThanOrEqual(1);

    await proxy.restore();
    await waitFor(() => redisBacked('GET /open'), 10_000, 100);
    expect(await redisBacked('GET /local')).toBe(true);

    // The node counted the decisions Redis did not make, and added them to usage once Redis was back.
    const redis = new Redis(TEST_REDIS_URL);
    try {
      const degraded = async () => countsOf(await redis.hgetall(usageKey(tenantId, minute))).filter((r) => r.result.startsWith('degraded'));
      await waitFor(async () => (await degraded()).some((r) => r.reason === 'local'), 10_000, 100);
      const rows = await degraded();
      const row = (result: string, reason: string) => rows.find((r) => r.result === result && r.reason === reason);
      // Open: the five above, and any degraded answers while the test waited for Redis.
      expect(row('degraded_allowed', 'open')).toMatchObject({ policyId: null });
      expect(row('degraded_allowed', 'open')!.decisions).toBeGreaterThanOrEqual(5);
      expect(row('degraded_denied', 'closed')).toEqual({ policyId: policyIds.get('shut'), result: 'degraded_denied', reason: 'closed', decisions: 1, cost: 0 });
      expect(row('degraded_allowed', 'local')).toEqual({ policyId: policyIds.get('near'), result: 'degraded_allowed', reason: 'local', decisions: 5, cost: 5 });
      expect(row('degraded_denied', 'local')).toEqual({ policyId: policyIds.get('near'), result: 'degraded_denied', reason: 'local', decisions: 2, cost: 0 });
    } finally {
      redis.disconnect();
    }
  });

  it('does not wait for a Redis that answers too late: the deadline decides, then Redis again when it is quick', async () => {
    await waitFor(() => redisBacked('GET /open'), 10_000, 100);
    // Redis answers after 2 s; the deadline is 50 ms. A degraded answer here cannot have waited for Redis's.
    proxy.delay(2_000);
    const slow = await check('GET /open');
    expect(slow.status).toBe(200);
    expect(slow.body).toMatchObject({ allowed: true, degraded: true });
    expect((await check('GET /closed')).status).toBe(503);
    proxy.delay(0);
    await waitFor(() => redisBacked('GET /open'), 10_000, 100);
  });

  it('reports degraded decisions and the circuit in /metrics', async () => {
    const metrics = (await api.request('GET', '/metrics', { token: TEST_METRICS_TOKEN })).body as unknown as string;
    const text = typeof metrics === 'string' ? metrics : JSON.stringify(metrics);
    expect(text).toMatch(/tollgate_degraded_decisions_total\{mode="open"\} [1-9]/);
    expect(text).toMatch(/tollgate_degraded_decisions_total\{mode="closed"\} [1-9]/);
    expect(text).toMatch(/tollgate_degraded_decisions_total\{mode="local"\} [1-9]/);
    expect(text).toMatch(/tollgate_redis_circuit_open 0/);
  });
});
