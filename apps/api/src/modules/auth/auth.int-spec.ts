import { beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../../../../../test/support/context';
import { createUser } from '../../../../../test/support/fixtures';

describe('auth: operator sessions', () => {
  const ctx = useOperatorApi();
  let user: { email: string; password: string };

  beforeAll(async () => {
    user = await createUser(ctx.prisma);
  });

  it('logs in, names the user, logs out, and the token is dead afterwards', async () => {
    const login = await ctx.api.request('POST', '/v1/auth/login', { body: { email: user.email.toUpperCase(), password: user.password } });
    expect(login.status).toBe(200);
    expect(login.body.token).toMatch(/^tg_sess_/);
    expect(Date.parse(login.body.expiresAt)).toBeGreaterThan(Date.now());
    const token: string = login.body.token;
    const me = await ctx.api.request('GET', '/v1/auth/me', { token });
    expect(me.body.user).toMatchObject({ email: user.email, role: 'operator' });
    expect(await ctx.prisma.session.count({ where: { tokenHash: token } })).toBe(0); // only the hash is stored
    expect((await ctx.api.request('POST', '/v1/auth/logout', { token })).status).toBe(204);
    expect((await ctx.api.request('GET', '/v1/auth/me', { token })).status).toBe(401);
  });

  it('answers the same 401 for a wrong password and an unknown e-mail', async () => {
    const wrong = await ctx.api.request('POST', '/v1/auth/login', { body: { email: user.email, password: 'wrong-password' } });
    const unknown = await ctx.api.request('POST', '/v1/auth/login', { body: { email: 'nobody@test.local', password: 'x' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
  });

  it('refuses a malformed login body with 400 naming the field', async () => {
    const r = await ctx.api.request('POST', '/v1/auth/login', { body: { email: 'not-an-email', password: 'x' } });
    expect(r.status).toBe(400);
    expect(r.body.error.field).toBe('email');
  });

  it('refuses an expired session', async () => {
    const login = await ctx.api.request('POST', '/v1/auth/login', { body: user });
    await ctx.prisma.session.updateMany({ where: { user: { email: user.email } }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await ctx.api.request('GET', '/v1/auth/me', { token: login.body.token })).status).toBe(401);
  });
});
