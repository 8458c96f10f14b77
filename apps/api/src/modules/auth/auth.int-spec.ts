import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL } from '../../../../../test/support/env';
import { createUser } from '../../../../../test/support/fixtures';
import { startApi, type TestApi } from '../../../../../test/support/api';

describe('auth: operator sessions', () => {
  let prisma: PrismaClient;
  let api: TestApi;
  let user: { email: string; password: string };

  beforeAll(async () => {
    prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    api = await startApi();
    user = await createUser(prisma);
  });
  afterAll(async () => {
    await api.close();
    await prisma.$disconnect();
  });

  it('logs in, names the user, logs out, and the token is dead afterwards', async () => {
    const login = await api.request('POST', '/v1/auth/login', { body: { email: user.email.toUpperCase(), password: user.password } });
    expect(login.status).toBe(200);
    expect(login.body.token).toMatch(/^tg_sess_/);
    expect(Date.parse(login.body.expiresAt)).toBeGreaterThan(Date.now());
    const token: string = login.body.token;
    const me = await api.request('GET', '/v1/auth/me', { token });
    expect(me.body.user).toMatchObject({ email: user.email, role: 'operator' });
    expect(await prisma.session.count({ where: { tokenHash: token } })).toBe(0); // only the hash is stored
    expect((await api.request('POST', '/v1/auth/logout', { token })).status).toBe(204);
    expect((await api.request('GET', '/v1/auth/me', { token })).status).toBe(401);
  });

  it('answers the same 401 for a wrong password and an unknown e-mail', async () => {
    const wrong = await api.request('POST', '/v1/auth/login', { body: { email: user.email, password: 'wrong-password' } });
    const unknown = await api.request('POST', '/v1/auth/login', { body: { email: 'nobody@test.local', password: 'x' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
  });

  it('refuses a malformed login body with 400 naming the field', async () => {
    const r = await api.request('POST', '/v1/auth/login', { body: { email: 'not-an-email', password: 'x' } });
    expect(r.status).toBe(400);
    expect(r.body.error.field).toBe('email');
  });

  it('refuses an expired session', async () => {
    const login = await api.request('POST', '/v1/auth/login', { body: user });
    await prisma.session.updateMany({ where: { user: { email: user.email } }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await api.request('GET', '/v1/auth/me', { token: login.body.token })).status).toBe(401);
  });
});
