import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../../../../../test/support/env';
import { createServiceKey, createTenant, createUser, publishRules, waitFor } from '../../../../../test/support/fixtures';
import { startApi, type TestApi } from '../../../../../test/support/api';

describe('plans admin API', () => {
  let prisma: PrismaClient;
  let nodeA: TestApi;
  let nodeB: TestApi;
  let session: string;
  let serviceKey: string;
  let fixture: Awaited<ReturnType<typeof createTenant>>;

  beforeAll(async () => {
    prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    // RULES_POLL_MS high: the swap must come from the announcement, not from polling.
    [nodeA, nodeB] = await Promise.all([startApi({ RULES_POLL_MS: '60000' }), startApi({ RULES_POLL_MS: '60000' })]);
    fixture = await createTenant(prisma);
    serviceKey = await createServiceKey(prisma);
    const user = await createUser(prisma);
    const ruleSet = await publishRules(prisma, TEST_REDIS_URL);
    for (const node of [nodeA, nodeB]) await waitFor(async () => (await node.request('GET', '/health')).body.ruleVersion >= ruleSet.version);
    session = (await nodeA.request('POST', '/v1/auth/login', { body: user })).body.token;
  });
  afterAll(async () => {
    await Promise.all([nodeA.close(), nodeB.close()]);
    await prisma.$disconnect();
  });

  const minuteLimit = () => fixture.plan.limits.find((l) => l.name === 'minute')!;
  const patchMinute = (limit: unknown, token = session) =>
    nodeA.request('PATCH', `/v1/admin/plans/${fixture.plan.id}/limits/${minuteLimit().id}`, { token, body: { limit } });
  const check = (node: TestApi, subject: string) =>
    node.request('POST', '/v1/check', { token: serviceKey, body: { tenant: fixture.tenant.slug, endpoint: 'GET /x', subject } });

  describe('happy', () => {
    it('lists plans with their limits and tenant counts', async () => {
      const r = await nodeA.request('GET', '/v1/admin/plans', { token: session });
      expect(r.status).toBe(200);
      const plan = r.body.items.find((p: { id: string }) => p.id === fixture.plan.id);
      expect(plan).toMatchObject({ slug: fixture.plan.slug, tenantCount: 1 });
      expect(plan.limits.map((l: { name: string; limit: number }) => [l.name, l.limit])).toEqual([['minute', 10], ['daily', 1000]]);
    });

    it('a limit change is a new rule set version, audited, and enforced by every node within a second without restart', async () => {
      for (let i = 0; i < 10; i += 1) expect((await check(nodeA, 'frank')).body.allowed).toBe(true);
      expect((await check(nodeB, 'frank')).body.allowed).toBe(false);

      const before = (await nodeA.request('GET', '/v1/admin/rule-sets/current', { token: session })).body.version;
      const r = await patchMinute(20);
      expect(r.status).toBe(200);
      expect(r.body.limit).toMatchObject({ name: 'minute', limit: 20 });
      expect(r.body.ruleVersion).toBeGreaterThan(before);
      const changedAt = Date.now();

      // The contract is "within a second" of the change being committed (BENCHMARKS.md measures the latency).
      for (const node of [nodeA, nodeB]) {
        await waitFor(async () => (await check(node, 'frank')).body.allowed === true, 1_000 - (Date.now() - changedAt), 10);
      }
      const audit = await prisma.auditLog.findFirst({ where: { entityId: minuteLimit().id }, orderBy: { id: 'desc' } });
      expect(audit).toMatchObject({ action: 'plan_limit.updated', before: expect.objectContaining({ limit: 10 }), after: expect.objectContaining({ limit: 20 }) });
      expect(audit!.actor).toMatch(/^user:/);
      const version = await prisma.ruleSetVersion.findUnique({ where: { version: r.body.ruleVersion } });
      expect(version!.diff).toEqual(
        expect.arrayContaining([expect.objectContaining({ path: `tenants.${fixture.tenant.slug}.limits.0.limit`, before: 10, after: 20 })]),
      );
    });
  });

  describe('errors', () => {
    it.each([
      ['zero', 0],
      ['negative', -5],
      ['fractional', 2.5],
      ['huge', 10_000_000_000],
      ['a string', 'ten'],
    ])('refuses a %s limit with 400 and leaves the version in force', async (_label, limit) => {
      const before = (await nodeA.request('GET', '/v1/admin/rule-sets/current', { token: session })).body.version;
      const r = await patchMinute(limit);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_failed', field: 'limit' });
      expect((await nodeA.request('GET', '/v1/admin/rule-sets/current', { token: session })).body.version).toBe(before);
    });

    it('refuses a change whose rule set does not compile, keeps the version in force, audits and counts the refusal', async () => {
      const logged = await createTenant(prisma, [{ name: 'minute', windowS: 60, limit: 100 }]);
      const limit = logged.plan.limits[0]!;
      await prisma.planLimit.update({ where: { id: limit.id }, data: { algorithm: 'sliding_log' } });
      const { version } = await publishRules(prisma, TEST_REDIS_URL);
      await waitFor(async () => (await nodeA.request('GET', '/health')).body.ruleVersion >= version);
      const counted = async () => Number(/^tollgate_rule_set_rejections_total (\d+)/m.exec((await nodeA.request('GET', '/metrics')).body)?.[1] ?? 0);
      const rejectionsBefore = await counted();

      // A sliding log stores one member per unit: the engine refuses more than 10,000 per window.
      const r = await nodeA.request('PATCH', `/v1/admin/plans/${logged.plan.id}/limits/${limit.id}`, { token: session, body: { limit: 20_000 } });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('rule_set_invalid');
      expect(r.body.error.message).toMatch(/10,?000|sliding/i);
      expect((await nodeA.request('GET', '/v1/admin/rule-sets/current', { token: session })).body.version).toBe(version);
      expect((await prisma.planLimit.findUnique({ where: { id: limit.id } }))!.limit).toBe(100);
      expect(await prisma.auditLog.count({ where: { action: 'plan_limit.updated', entityId: limit.id } })).toBe(0);
      const rejection = await prisma.auditLog.findFirst({ where: { action: 'rule_set.rejected' }, orderBy: { id: 'desc' } });
      expect(rejection!.actor).toMatch(/^user:/);
      expect(await counted()).toBe(rejectionsBefore + 1);
      const check = await nodeB.request('POST', '/v1/check', { token: serviceKey, body: { tenant: logged.tenant.slug, endpoint: 'GET /x' } });
      expect(check.body.limits[0].limit).toBe(100);
    });

    it('answers 404 for an unknown or malformed id', async () => {
      const unknown = await nodeA.request('PATCH', `/v1/admin/plans/${fixture.plan.id}/limits/00000000-0000-4000-8000-000000000000`, {
        token: session,
        body: { limit: 5 },
      });
      expect(unknown.status).toBe(404);
      const malformed = await nodeA.request('PATCH', `/v1/admin/plans/nope/limits/nope`, { token: session, body: { limit: 5 } });
      expect(malformed.status).toBe(404);
      expect(malformed.body.error.code).toBe('not_found');
    });
  });

  describe('security', () => {
    it('answers 401 to anonymous callers and 403 to service keys', async () => {
      expect((await nodeA.request('GET', '/v1/admin/plans')).status).toBe(401);
      expect((await patchMinute(30, '')).status).toBe(401);
      expect((await nodeA.request('GET', '/v1/admin/plans', { token: serviceKey })).status).toBe(403);
      expect((await patchMinute(30, serviceKey)).status).toBe(403);
      expect((await nodeA.request('GET', '/v1/admin/tenants', { token: 'tg_sess_forged' })).status).toBe(401);
    });

    it('refuses a tenant user\'s session on operator routes', async () => {
      const tenantUser = await createUser(prisma, 'tenant', fixture.tenant.id);
      const token = (await nodeA.request('POST', '/v1/auth/login', { body: tenantUser })).body.token;
      expect((await nodeA.request('GET', '/v1/admin/plans', { token })).status).toBe(403);
    });
  });
});
