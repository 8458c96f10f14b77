import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type TestApi } from '../../../../../test/support/api';
import { TEST_DATABASE_URL } from '../../../../../test/support/env';
import { createTenant, createUser } from '../../../../../test/support/fixtures';

describe('rule set versions API', () => {
  let prisma: PrismaClient;
  let api: TestApi;
  let session: string;
  let versions: number[];
  let fixture: Awaited<ReturnType<typeof createTenant>>;

  beforeAll(async () => {
    prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    api = await startApi();
    fixture = await createTenant(prisma);
    session = (await api.request('POST', '/v1/auth/login', { body: await createUser(prisma) })).body.token;
    const minute = fixture.plan.limits.find((l) => l.name === 'minute')!;
    versions = [];
    for (const limit of [11, 12]) {
      const r = await api.request('PATCH', `/v1/admin/plans/${fixture.plan.id}/limits/${minute.id}`, { token: session, body: { limit } });
      versions.push(r.body.ruleVersion);
    }
  });
  afterAll(async () => {
    await api.close();
    await prisma.$disconnect();
  });

  it('lists versions newest first with author and number of changes, a page at a time', async () => {
    const first = await api.request('GET', '/v1/admin/rule-sets?limit=1', { token: session });
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(1);
    expect(first.body.items[0].version).toBeGreaterThanOrEqual(versions[1]!);
    const next = await api.request('GET', `/v1/admin/rule-sets?limit=1&before=${first.body.nextBefore}`, { token: session });
    expect(next.body.items[0].version).toBeLessThan(first.body.items[0].version);
    const mine = await api.request('GET', `/v1/admin/rule-sets/${versions[1]}`, { token: session });
    expect(mine.body).toMatchObject({ version: versions[1], author: expect.stringMatching(/^user:/) });
    expect(mine.body.compiled.tenants[fixture.tenant.slug].limits[0].limit).toBe(12);
  });

  it('diffs two versions in either direction', async () => {
    const path = `tenants.${fixture.tenant.slug}.limits.0.limit`;
    const forward = await api.request('GET', `/v1/admin/rule-sets/diff?from=${versions[0]}&to=${versions[1]}`, { token: session });
    expect(forward.body.changes).toContainEqual({ path, before: 11, after: 12 });
    const back = await api.request('GET', `/v1/admin/rule-sets/diff?from=${versions[1]}&to=${versions[0]}`, { token: session });
    expect(back.body.changes).toContainEqual({ path, before: 12, after: 11 });
  });

  it('answers 404 for an unknown or malformed version and 400 for a bad diff query', async () => {
    expect((await api.request('GET', '/v1/admin/rule-sets/999999999', { token: session })).status).toBe(404);
    expect((await api.request('GET', '/v1/admin/rule-sets/abc', { token: session })).status).toBe(404);
    expect((await api.request('GET', `/v1/admin/rule-sets/diff?from=${versions[0]}&to=999999999`, { token: session })).status).toBe(404);
    const bad = await api.request('GET', '/v1/admin/rule-sets/diff?from=x&to=1', { token: session });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('from');
  });
});
