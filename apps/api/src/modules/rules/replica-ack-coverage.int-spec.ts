import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type TestApi } from '../../../../../test/support/api';
import { TEST_DATABASE_URL, TEST_METRICS_TOKEN, TEST_REDIS_URL } from '../../../../../test/support/env';
import { createServiceKey, createTenant, publishRules } from '../../../../../test/support/fixtures';

// A policy that waits for a replica (`replicaAck`) on the suite's own Redis, which has none: every check of it is
// answered by its failure mode. The node says so once per rule set load (a warning, not one per check), in the gauge
// tollgate_replica_ack_primaries_short, and in /health's details, whose status stays what it was.
interface Line {
  level: number;
  msg?: string;
}

describe('a replicaAck policy on a Redis without replicas', () => {
  const lines: string[] = [];
  let prisma: PrismaClient;
  let api: TestApi;
  let service: string;
  let tenant: string;
  let version: number;

  beforeAll(async () => {
    prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    api = await startApi({ LOG_LEVEL: 'info' }, { logDestination: { write: (line: string) => void lines.push(line) } });
    const fixture = await createTenant(prisma, [{ name: 'daily', windowS: 86_400, limit: 1000 }]);
    tenant = fixture.tenant.slug;
    await prisma.endpointPolicy.create({
      data: { planId: fixture.plan.id, name: 'acked', method: 'GET', pattern: '/acked', failureMode: 'open', replicaAck: true, limits: { create: [{ name: 'minute', windowS: 60, limit: 100 }] } },
    });
    service = await createServiceKey(prisma);
    ({ version } = await publishRules(prisma, TEST_REDIS_URL));
    await api.waitForRuleVersion(version);
  });
  afterAll(async () => {
    await api?.close();
    await prisma?.$disconnect();
  });

  /** The warnings about replicaAck policies that cannot be acknowledged, of rule set `v`. */
  const warnings = (v: number) =>
    lines.map((l) => JSON.parse(l) as Line).filter((l) => l.level === 40 && l.msg?.startsWith(`rule set v${v}:`) && l.msg.includes('(replicaAck)'));

  it('warns once for the rule set load, not for each check, naming the primary without a replica', async () => {
    await expect.poll(() => warnings(version).length, { timeout: 5_000 }).toBe(1);
    expect(warnings(version)[0]!.msg).toMatch(/wait(s)? for 1 replica \(replicaAck\), but this Redis primary has fewer online: redis \(0\)\. Their checks are answered by their failure mode \(cause replica\)/);
    for (let i = 0; i < 10; i += 1) {
      const r = await api.request('POST', '/v1/check', { token: service, body: { tenant, endpoint: 'GET /acked' } });
      expect(r.body).toMatchObject({ allowed: true, degraded: true });
    }
    expect(warnings(version)).toHaveLength(1);
  });

  it('sets the gauge of primaries short of replicas', async () => {
    const metrics = String((await api.request('GET', '/metrics', { token: TEST_METRICS_TOKEN })).body);
    expect(metrics).toMatch(/^tollgate_replica_ack_primaries_short 1$/m);
  });

  it('says it in /health, whose status stays 200', async () => {
    const r = await api.request('GET', '/health');
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('ok');
    expect(r.body.replicaAck).toEqual({ policies: expect.any(Number), replicasRequired: 1, primariesShort: [{ node: 'redis', replicas: 0 }] });
    expect(r.body.replicaAck.policies).toBeGreaterThanOrEqual(1);
  });
});
