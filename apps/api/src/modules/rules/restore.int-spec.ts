import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type TestApi } from '../../../../../test/support/api';
import { createServiceKey, createTenant, createUser, publishRules, waitFor } from '../../../../../test/support/fixtures';
import { ownStores } from '../../../../../test/support/stack';

// A restore rolls back every plan: this file has a database and a Redis database of its own, so that it
// never rolls back another test file's fixtures.

describe('restoring a rule set version', () => {
  let prisma: PrismaClient;
  let api: TestApi;
  let session: string;
  let key: string;
  let fixture: Awaited<ReturnType<typeof createTenant>>;

  beforeAll(async () => {
    const { databaseUrl, redisUrl } = await ownStores('restore', 3);
    prisma = createPrismaClient(databaseUrl, { poolSize: 2 });
    fixture = await createTenant(prisma);
    key = await createServiceKey(prisma);
    const user = await createUser(prisma);
    await publishRules(prisma, redisUrl);
    api = await startApi({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl });
    session = await api.login(user);
  });
  afterAll(async () => {
    await api?.close();
    await prisma?.$disconnect();
  });

  const minute = () => fixture.plan.limits.find((l) => l.name === 'minute')!;
  const setMinute = async (limit: number) =>
    (await api.request('PATCH', `/v1/admin/plans/${fixture.plan.id}/limits/${minute().id}`, { token: session, body: { limit } })).body.ruleVersion as number;
  const enforcedMinute = async () =>
    (await api.request('POST', '/v1/check', { token: key, body: { tenant: fixture.tenant.slug, endpoint: 'GET /x', subject: 'peek' } })).body.limits[0].limit as number;

  it('writes an old version\'s limits back as a new version that every node enforces, and audits it', async () => {
    const v10 = await setMinute(10);
    await setMinute(11);
    const v12 = await setMinute(12);
    await waitFor(async () => (await enforcedMinute()) === 12);

    const undoes = [{ kind: 'plan', text: `${fixture.plan.slug}: minute 12 → 10` }];
    // Before: what it would undo, and nothing written.
    const preview = await api.request('GET', `/v1/admin/rule-sets/${v10}/restore-preview`, { token: session });
    expect(preview.body).toEqual({ version: v10, current: v12, summary: undoes[0]!.text, undoes });
    expect((await prisma.planLimit.findUnique({ where: { id: minute().id } }))!.limit).toBe(12);
    expect((await api.request('GET', '/v1/admin/rule-sets/current', { token: session })).body.version).toBe(v12);

    const r = await api.request('POST', `/v1/admin/rule-sets/${v10}/restore`, { token: session });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ruleVersion: v12 + 1, restoredFrom: v10, published: true, summary: undoes[0]!.text, undoes });
    expect((await prisma.planLimit.findUnique({ where: { id: minute().id } }))!.limit).toBe(10);
    await waitFor(async () => (await enforcedMinute()) === 10, 1_000);
    // The new version's changes are what the restore undid, and the history counts them alike.
    const diff = await api.request('GET', `/v1/admin/rule-sets/diff?from=${v12}&to=${v12 + 1}`, { token: session });
    expect(diff.body.changes).toEqual(undoes);
    const listed = (await api.request('GET', '/v1/admin/rule-sets?pageSize=1', { token: session })).body.items[0];
    expect(listed).toMatchObject({ version: v12 + 1, changes: 1, summary: undoes[0]!.text });
    const audit = await prisma.auditLog.findFirst({ where: { action: 'rule_set.restored' }, orderBy: { id: 'desc' } });
    expect(audit).toMatchObject({ entityId: String(v10), actor: expect.stringMatching(/^user:/) });
  });

  it('brings a tenant\'s limit overrides back as they were', async () => {
    const put = (limit: number) =>
      api.request('PUT', `/v1/admin/tenants/${fixture.tenant.id}/overrides/minute`, { token: session, body: { windowS: 60, limit } });
    const with30 = (await put(30)).body.ruleVersion as number;
    await put(40);
    await api.request('DELETE', `/v1/admin/tenants/${fixture.tenant.id}/overrides/minute`, { token: session });
    await waitFor(async () => (await enforcedMinute()) !== 30 && (await enforcedMinute()) !== 40);
    expect((await api.request('POST', `/v1/admin/rule-sets/${with30}/restore`, { token: session })).status).toBe(200);
    await waitFor(async () => (await enforcedMinute()) === 30, 1_000);
  });

  it('brings endpoint policies back as they were: changed ones, deleted ones (same id), and none created since', async () => {
    const policies = (method: string, path = '', body?: unknown) => api.request(method, `/v1/admin/policies${path}`, { token: session, body });
    const created = await policies('POST', '', {
      planId: fixture.plan.id,
      name: 'items',
      method: 'GET',
      pattern: '/v1/items/*',
      mode: 'shadow',
      limits: [{ name: 'minute', windowS: 60, limit: 50 }],
    });
    expect(created.status).toBe(201);
    const id: string = created.body.policy.id;
    const withPolicy: number = created.body.ruleVersion;
    await policies('PATCH', `/${id}`, { mode: 'enforce' });
    await policies('DELETE', `/${id}`);
    const later = await policies('POST', '', { tenantId: fixture.tenant.id, name: 'later', method: 'POST', pattern: '/v1/later', limits: [] });
    expect(later.status).toBe(201);

    const r = await api.request('POST', `/v1/admin/rule-sets/${withPolicy}/restore`, { token: session });
    expect(r.status).toBe(200);
    const restored = await policies('GET', `/${id}`);
    expect(restored.body).toMatchObject({ id, mode: 'shadow', limits: [{ name: 'minute', limit: 50 }] });
    expect((await policies('GET', `/${later.body.policy.id}`)).status).toBe(404);
    const version = (await api.request('GET', `/v1/admin/rule-sets/${r.body.ruleVersion}`, { token: session })).body;
    expect(version.compiled.policies.plans[fixture.plan.slug]['GET /v1/items/*']).toMatchObject({ id, mode: 'shadow' });
    expect(version.compiled.policies.tenants).toEqual({});
    const diff = await api.request('GET', `/v1/admin/rule-sets/diff?from=${withPolicy}&to=${r.body.ruleVersion}`, { token: session });
    expect(diff.body.changes.filter((c: { kind: string }) => c.kind === 'policy')).toEqual([]);
  });

  it('publishes nothing when the rules in force are already those of the version, and says it undid nothing', async () => {
    const current = (await api.request('GET', '/v1/admin/rule-sets/current', { token: session })).body.version as number;
    expect((await api.request('GET', `/v1/admin/rule-sets/${current}/restore-preview`, { token: session })).body).toEqual({
      version: current,
      current,
      summary: 'no change to enforcement',
      undoes: [],
    });
    const r = await api.request('POST', `/v1/admin/rule-sets/${current}/restore`, { token: session });
    expect(r.body).toEqual({ ruleVersion: current, restoredFrom: current, published: false, summary: 'no change to enforcement', undoes: [] });
    expect((await api.request('GET', '/v1/admin/rule-sets/current', { token: session })).body.version).toBe(current);
    // Audited all the same, naming no version.
    const audit = await prisma.auditLog.findFirst({ where: { action: 'rule_set.restored' }, orderBy: { id: 'desc' } });
    expect(audit).toMatchObject({ entityId: String(current), ruleVersion: null });
  });

  it('keeps plans\' display names: a name is not a rule, and a restore does not undo it', async () => {
    const before = (await api.request('GET', '/v1/admin/rule-sets/current', { token: session })).body.version as number;
    await setMinute(21);
    const renamed = await api.request('PATCH', `/v1/admin/plans/${fixture.plan.id}`, { token: session, body: { name: 'Renamed plan' } });
    expect(renamed.status).toBe(200);
    const preview = await api.request('GET', `/v1/admin/rule-sets/${before}/restore-preview`, { token: session });
    expect(preview.body.undoes.map((c: { text: string }) => c.text)).toEqual([expect.stringMatching(/: minute 21 → \d+$/)]);
    await api.request('POST', `/v1/admin/rule-sets/${before}/restore`, { token: session });
    expect((await prisma.plan.findUnique({ where: { id: fixture.plan.id } }))!.name).toBe('Renamed plan');
  });

  it('never brings back a revoked key', async () => {
    const before = (await api.request('GET', '/v1/admin/rule-sets/current', { token: session })).body.version as number;
    await prisma.apiKey.updateMany({ where: { prefix: key.slice(0, 12) }, data: { revokedAt: new Date() } });
    await setMinute(13); // a new version without the key
    await api.request('POST', `/v1/admin/rule-sets/${before}/restore`, { token: session });
    const check = await api.request('POST', '/v1/check', { token: key, body: { tenant: fixture.tenant.slug, endpoint: 'GET /x' } });
    expect(check.status).toBe(401);
  });

  it('answers 409 for a version without a snapshot and 404 for an unknown one', async () => {
    const current = (await api.request('GET', '/v1/admin/rule-sets/current', { token: session })).body.version as number;
    await prisma.$executeRaw`update rule_set_versions set source = null where version = ${current}`;
    const conflict = await api.request('POST', `/v1/admin/rule-sets/${current}/restore`, { token: session });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('conflict');
    const previewed = await api.request('GET', `/v1/admin/rule-sets/${current}/restore-preview`, { token: session });
    expect(previewed.body).toEqual(conflict.body);
    expect((await api.request('POST', '/v1/admin/rule-sets/999999/restore', { token: session })).status).toBe(404);
    expect((await api.request('GET', '/v1/admin/rule-sets/999999/restore-preview', { token: session })).status).toBe(404);
  });
});
