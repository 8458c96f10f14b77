import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../../../../../test/support/context';
import { TEST_METRICS_TOKEN } from '../../../../../test/support/env';
import { awayFromMinuteBoundary, createServiceKey, createTenant, publishRules } from '../../../../../test/support/fixtures';
import { replicaOf, startSentinel, type TestSentinel } from '../../../../../test/support/redis-sentinel';

// An endpoint policy with `replicaAck` (docs/adr/0021-one-request-one-decision.md, "Waiting for a replica"): its checks
// are answered from Redis once a replica holds their writes; with no replica acknowledging in time, the policy's
// failure mode answers, counted with the cause `replica`. The API runs on the suite's own primary and replica.
describe('POST /v1/check of a policy that waits for a replica', () => {
  let servers: TestSentinel;
  let redisUrl: string;
  let replica: Redis;
  const ctx = useOperatorApi({}, {
    startEnv: async () => {
      servers = await startSentinel({ sentinels: 1 });
      const { host, port } = servers.primary();
      redisUrl = `redis://${host}:${port}`;
      replica = new Redis(await replicaOf(servers));
      // Generous for a loaded machine: a check that expects the acknowledgement must not miss it by a stall.
      return { REDIS_URL: redisUrl, REPLICA_ACK_TIMEOUT_MS: '1000', DECISION_DEADLINE_MS: '3000' };
    },
  });
  afterAll(async () => {
    replica?.disconnect();
    await servers?.stop();
  });
  let key: string;
  let tenantSlug: string;
  beforeAll(async () => {
    key = await createServiceKey(ctx.prisma);
    const { plan, tenant } = await createTenant(ctx.prisma, [{ name: 'daily', windowS: 86_400, limit: 1000 }]);
    tenantSlug = tenant.slug;
    for (const [name, pattern, failureMode] of [['acked', '/acked', 'closed'], ['open', '/open', 'open']] as const) {
      await ctx.prisma.endpointPolicy.create({
        data: { planId: plan.id, name, method: 'GET', pattern, failureMode, replicaAck: true, limits: { create: [{ name: 'minute', windowS: 60, limit: 3 }] } },
      });
    }
    const ruleSet = await publishRules(ctx.prisma, redisUrl);
    await ctx.api.waitForRuleVersion(ruleSet.version);
  });
  const check = (path: string) => ctx.api.request('POST', '/v1/check', { token: key, body: { tenant: tenantSlug, endpoint: `GET ${path}` } });

  it('decides on Redis while the replica acknowledges, exactly to the limit', async () => {
    await awayFromMinuteBoundary();
    const answers = [];
    for (let i = 0; i < 4; i += 1) answers.push((await check('/acked')).body);
    expect(answers.map((a) => [a.allowed, a.degraded ?? false])).toEqual([[true, false], [true, false], [true, false], [false, false]]);
  });

  it('answers by the failure mode when no replica acknowledges, and counts the cause', async () => {
    await replica.replicaof('NO', 'ONE');
    try {
      const closed = await check('/acked');
      expect(closed.status).toBe(503);
      expect(closed.body.error.code).toBe('redis_unavailable');
      const open = await check('/open');
      expect(open.status).toBe(200);
      expect(open.body).toMatchObject({ allowed: true, degraded: true });
      const metrics = String((await ctx.api.request('GET', '/metrics', { token: TEST_METRICS_TOKEN })).body);
      expect(metrics).toMatch(/tollgate_degraded_decisions_total\{mode="closed",cause="replica"\} 1\b/);
      expect(metrics).toMatch(/tollgate_degraded_decisions_total\{mode="open",cause="replica"\} 1\b/);
    } finally {
      const { host, port } = servers.primary();
      await replica.replicaof(host, port);
      await expect.poll(async () => (await replica.info('replication')).includes('master_link_status:up'), { timeout: 20_000 }).toBe(true);
    }
  });
});
