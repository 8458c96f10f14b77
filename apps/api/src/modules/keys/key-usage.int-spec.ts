import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type TestApi } from '../../../../../test/support/api';
import { TEST_DATABASE_URL } from '../../../../../test/support/env';
import { createTenant, createUser, waitFor } from '../../../../../test/support/fixtures';
import { proxiedDatabase, type TcpProxy } from '../../../../../test/support/tcp-proxy';
import { KeyUsage } from './key-usage.service';

// Service and tenant keys are checked against the rule set in memory, never Postgres: when they were last used is
// written in the background. This node writes it every 50 ms and reaches Postgres through a proxy the test cuts.
describe('when keys were last used', () => {
  let prisma: PrismaClient;
  let proxy: TcpProxy;
  let api: TestApi;
  let session: string;
  let fixture: Awaited<ReturnType<typeof createTenant>>;

  beforeAll(async () => {
    prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    const proxied = await proxiedDatabase(TEST_DATABASE_URL);
    proxy = proxied.proxy;
    api = await startApi({ DATABASE_URL: proxied.databaseUrl, KEY_USAGE_FLUSH_MS: '50' });
    session = await api.login(await createUser(prisma));
    fixture = await createTenant(prisma, [{ name: 'minute', windowS: 60, limit: 1000 }]);
  });
  afterAll(async () => {
    await api?.close();
    await proxy?.close();
    await prisma?.$disconnect();
  });

  const newKey = async (body: Record<string, unknown>) => {
    const r = await api.request('POST', '/v1/admin/keys', { token: session, body: { name: 'used', ...body } });
    expect(r.status).toBe(201);
    await api.waitForRuleVersion(r.body.ruleVersion);
    return { key: r.body.key as string, id: r.body.apiKey.id as string };
  };
  const lastUsedAt = async (id: string) => (await api.request('GET', `/v1/admin/keys/${id}`, { token: session })).body.lastUsedAt as string | null;
  const check = (token: string, target: Record<string, string>) =>
    api.request('POST', '/v1/check', { token, body: { endpoint: 'GET /x', ...target } });

  it('records service keys and tenant keys used in checks and forward-auth, shown by GET /v1/admin/keys/:id', async () => {
    const service = await newKey({ kind: 'service', tenants: [fixture.tenant.id] });
    const gateway = await newKey({ kind: 'service' });
    const inBody = await newKey({ kind: 'tenant', tenantId: fixture.tenant.id });
    const atGateway = await newKey({ kind: 'tenant', tenantId: fixture.tenant.id });
    const keys = [service, gateway, inBody, atGateway];
    for (const { id } of keys) expect(await lastUsedAt(id)).toBeNull();

    const before = Date.now();
    expect((await check(service.key, { tenant: fixture.tenant.slug })).body.allowed).toBe(true);
    expect((await check(service.key, { key: inBody.key })).body.allowed).toBe(true);
    const forwarded = await api.request('GET', '/v1/forward-auth', {
      headers: { 'x-tollgate-key': gateway.key, 'x-api-key': atGateway.key, 'x-forwarded-method': 'GET', 'x-forwarded-uri': '/x' },
    });
    expect(forwarded.status).toBe(200);

    await waitFor(async () => (await Promise.all(keys.map(({ id }) => lastUsedAt(id)))).every((at) => at !== null));
    for (const { id } of keys) {
      const at = Date.parse((await lastUsedAt(id))!);
      expect(at).toBeGreaterThanOrEqual(before);
      expect(at).toBeLessThanOrEqual(Date.now());
    }
  });

  it('writes what it saw when the node shuts down', async () => {
    // A node that would not write for an hour: only its last write on shutdown can record the check.
    const node = await startApi({ KEY_USAGE_FLUSH_MS: '3600000' });
    const service = await newKey({ kind: 'service' });
    await waitFor(async () => (await node.request('GET', '/health')).body.ruleVersion >= (await api.request('GET', '/health')).body.ruleVersion);
    const r = await node.request('POST', '/v1/check', { token: service.key, body: { tenant: fixture.tenant.slug, endpoint: 'GET /x' } });
    expect(r.body.allowed).toBe(true);
    await node.close();
    expect((await prisma.apiKey.findUniqueOrThrow({ where: { id: service.id } })).lastUsedAt).not.toBeNull();
  });

  it('keeps checking while Postgres is down, and writes the keys\' last use once it is back', async () => {
    const service = await newKey({ kind: 'service' });
    const tenantKey = await newKey({ kind: 'tenant', tenantId: fixture.tenant.id });
    const usage = api.app.get(KeyUsage);
    await proxy.cut();
    try {
      for (let i = 0; i < 3; i += 1) {
        const r = await check(service.key, { key: tenantKey.key });
        expect(r.status).toBe(200);
        expect(r.body.allowed).toBe(true);
      }
      // The write fails (the node cannot reach Postgres) without throwing, and checks go on.
      await usage.flush();
      expect((await check(service.key, { tenant: fixture.tenant.slug })).body.allowed).toBe(true);
      // Read past the proxy: nothing was written.
      const rows = await prisma.apiKey.findMany({ where: { id: { in: [service.id, tenantKey.id] } } });
      expect(rows.map((k) => k.lastUsedAt)).toEqual([null, null]);
    } finally {
      await proxy.restore();
    }
    // No check after this: only a retry of what was seen while Postgres was down can write it.
    await waitFor(async () => (await prisma.apiKey.findMany({ where: { id: { in: [service.id, tenantKey.id] } } })).every((k) => k.lastUsedAt !== null), 10_000, 50);
  });
});
