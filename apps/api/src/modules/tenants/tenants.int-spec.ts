import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL } from '../../../../../test/support/env';
import { createTenant, createUser } from '../../../../../test/support/fixtures';
import { startApi, type TestApi } from '../../../../../test/support/api';

describe('GET /v1/admin/tenants', () => {
  let prisma: PrismaClient;
  let api: TestApi;
  let session: string;

  beforeAll(async () => {
    prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    api = await startApi();
    await Promise.all([createTenant(prisma), createTenant(prisma), createTenant(prisma)]);
    session = (await api.request('POST', '/v1/auth/login', { body: await createUser(prisma) })).body.token;
  });
  afterAll(async () => {
    await api.close();
    await prisma.$disconnect();
  });

  it('pages through every tenant in slug order with nextCursor', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r: { status: number; body: { items: { slug: string; plan: { slug: string } }[]; nextCursor: string | null } } =
        await api.request('GET', `/v1/admin/tenants?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { token: session });
      expect(r.status).toBe(200);
      expect(r.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.items.map((t) => t.slug));
      cursor = r.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...seen].sort());
    expect(seen.length).toBe(await prisma.tenant.count());
  });

  it('refuses a bad page size with 400 naming the field', async () => {
    const r = await api.request('GET', '/v1/admin/tenants?limit=0', { token: session });
    expect(r.status).toBe(400);
    expect(r.body.error.field).toBe('limit');
  });

  it('answers 401 without a session', async () => {
    expect((await api.request('GET', '/v1/admin/tenants')).status).toBe(401);
  });
});
