import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../../../../../test/support/context';
import { createTenant, createUser } from '../../../../../test/support/fixtures';

describe('admin API: users', () => {
  const ctx = useOperatorApi();
  let tenant: Awaited<ReturnType<typeof createTenant>>['tenant'];
  const email = (what: string) => `${what}-${randomUUID().slice(0, 8)}@example.test`;

  beforeAll(async () => {
    ({ tenant } = await createTenant(ctx.prisma));
  });

  const audits = (entityId: string) => ctx.prisma.auditLog.findMany({ where: { entityId }, orderBy: { id: 'asc' } });

  it('creates a tenant\'s user who can sign in and sees only that tenant; the audit log has it, the hash is nowhere', async () => {
    const body = { email: email('Ops'), name: 'Acme ops', role: 'tenant', tenantId: tenant.id, password: 'correct horse battery' };
    const r = await ctx.api.request('POST', '/v1/admin/users', { token: ctx.session, body });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ email: body.email.toLowerCase(), name: 'Acme ops', role: 'tenant', tenant: { id: tenant.id, slug: tenant.slug } });
    expect(JSON.stringify(r.body)).not.toMatch(/password|argon/i);
    const [audit] = await audits(r.body.id);
    expect(audit).toMatchObject({ action: 'user.created', actor: `user:${ctx.operatorEmail}` });
    expect(JSON.stringify([audit?.before, audit?.after])).not.toMatch(/argon|correct horse/);

    const login = await ctx.api.request('POST', '/v1/auth/login', { body: { email: body.email, password: body.password } });
    expect(login.status).toBe(200);
    expect((await ctx.api.request('GET', '/v1/tenant', { token: login.body.token })).body.slug).toBe(tenant.slug);
    expect((await ctx.api.request('GET', '/v1/admin/users', { token: login.body.token })).status).toBe(403);
  });

  it('refuses bad input with 400 and a field, and creates nothing', async () => {
    const before = await ctx.prisma.user.count();
    const cases: [Record<string, unknown>, string][] = [
      [{ email: 'not-an-email', name: 'x', role: 'operator', password: 'long enough password' }, 'email'],
      [{ email: email('short'), name: 'x', role: 'operator', password: 'short' }, 'password'],
      [{ email: email('t'), name: 'x', role: 'tenant', password: 'long enough password' }, 'tenantId'],
      [{ email: email('o'), name: 'x', role: 'operator', tenantId: tenant.id, password: 'long enough password' }, 'tenantId'],
      [{ email: email('u'), name: 'x', role: 'tenant', tenantId: randomUUID(), password: 'long enough password' }, 'tenantId'],
      [{ email: email('r'), name: 'x', role: 'root', password: 'long enough password' }, 'role'],
      [{ email: email('e'), name: 'x', role: 'operator', password: 'long enough password', isAdmin: true }, ''],
      [{ email: email('n'), name: ' ', role: 'operator', password: 'long enough password' }, 'name'],
    ];
    for (const [body, field] of cases) {
      const r = await ctx.api.request('POST', '/v1/admin/users', { token: ctx.session, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
      if (field) expect(r.body.error.field).toBe(field);
    }
    expect(await ctx.prisma.user.count()).toBe(before);
  });

  it('answers 409 for an e-mail in use (in any case), 404 for an unknown id', async () => {
    const body = { email: email('dup'), name: 'Dup', role: 'operator', password: 'long enough password' };
    expect((await ctx.api.request('POST', '/v1/admin/users', { token: ctx.session, body })).status).toBe(201);
    const again = await ctx.api.request('POST', '/v1/admin/users', { token: ctx.session, body: { ...body, email: body.email.toUpperCase() } });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'conflict', field: 'email' });
    for (const [method, body2] of [['GET'], ['PATCH', { name: 'x' }], ['DELETE']] as const) {
      const r = await ctx.api.request(method, `/v1/admin/users/${randomUUID()}`, { token: ctx.session, body: body2 });
      expect(r.status).toBe(404);
    }
    expect((await ctx.api.request('GET', '/v1/admin/users/not-a-uuid', { token: ctx.session })).status).toBe(404);
  });

  it('changes a password: the old sessions end, the new password signs in, the old one does not', async () => {
    const account = await createUser(ctx.prisma, 'tenant', tenant.id);
    const session = (await ctx.api.request('POST', '/v1/auth/login', { body: account })).body.token;
    const user = await ctx.prisma.user.findUniqueOrThrow({ where: { email: account.email } });
    const r = await ctx.api.request('PATCH', `/v1/admin/users/${user.id}`, { token: ctx.session, body: { password: 'a brand new passphrase' } });
    expect(r.status).toBe(200);
    expect((await ctx.api.request('GET', '/v1/tenant', { token: session })).status).toBe(401);
    expect((await ctx.api.request('POST', '/v1/auth/login', { body: account })).status).toBe(401);
    expect((await ctx.api.request('POST', '/v1/auth/login', { body: { email: account.email, password: 'a brand new passphrase' } })).status).toBe(200);
    const audit = (await audits(user.id)).at(-1);
    expect(audit).toMatchObject({ action: 'user.updated', after: expect.objectContaining({ passwordChanged: true }) });
    expect((await ctx.api.request('PATCH', `/v1/admin/users/${user.id}`, { token: ctx.session, body: {} })).status).toBe(400);
    expect((await ctx.api.request('PATCH', `/v1/admin/users/${user.id}`, { token: ctx.session, body: { role: 'operator' } })).status).toBe(400);
  });

  it('lists users a page at a time, filtered by role and tenant', async () => {
    for (let i = 0; i < 3; i += 1) await createUser(ctx.prisma, 'tenant', tenant.id);
    const first = await ctx.api.request('GET', `/v1/admin/users?role=tenant&tenantId=${tenant.id}&pageSize=2`, { token: ctx.session });
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(2);
    expect(first.body.nextCursor).toBe(first.body.items[1].email);
    const seen = [...first.body.items];
    let cursor = first.body.nextCursor;
    while (cursor) {
      const page = await ctx.api.request('GET', `/v1/admin/users?role=tenant&tenantId=${tenant.id}&pageSize=2&cursor=${encodeURIComponent(cursor)}`, { token: ctx.session });
      seen.push(...page.body.items);
      cursor = page.body.nextCursor;
    }
    expect(seen.length).toBe(await ctx.prisma.user.count({ where: { tenantId: tenant.id } }));
    expect(seen.every((u) => u.role === 'tenant' && u.tenant.id === tenant.id)).toBe(true);
    const found = await ctx.api.request('GET', `/v1/admin/users?q=${encodeURIComponent(seen[0].email.toUpperCase())}&role=tenant`, { token: ctx.session });
    expect(found.body.items.map((u: { email: string }) => u.email)).toEqual([seen[0].email]);
    expect((await ctx.api.request('GET', `/v1/admin/users?q=${encodeURIComponent(seen[0].email)}&role=operator`, { token: ctx.session })).body.items).toEqual([]);
    expect((await ctx.api.request('GET', '/v1/admin/users?q=%25%25%25', { token: ctx.session })).body.items).toEqual([]);
    expect((await ctx.api.request('GET', '/v1/admin/users?q=%0A', { token: ctx.session })).body.error).toMatchObject({ field: 'q' });
    expect((await ctx.api.request('GET', '/v1/admin/users?role=root', { token: ctx.session })).status).toBe(400);
    expect((await ctx.api.request('GET', '/v1/admin/users?pageSize=0', { token: ctx.session })).status).toBe(400);
  });

  it('deletes a user (their sessions end) but never the operator deleting', async () => {
    const account = await createUser(ctx.prisma, 'operator');
    const session = (await ctx.api.request('POST', '/v1/auth/login', { body: account })).body.token;
    const user = await ctx.prisma.user.findUniqueOrThrow({ where: { email: account.email } });
    expect((await ctx.api.request('DELETE', `/v1/admin/users/${user.id}`, { token: ctx.session })).status).toBe(204);
    expect((await ctx.api.request('GET', '/v1/auth/me', { token: session })).status).toBe(401);
    expect((await audits(user.id)).at(-1)).toMatchObject({ action: 'user.deleted' });
    const me = await ctx.prisma.user.findUniqueOrThrow({ where: { email: ctx.operatorEmail } });
    const self = await ctx.api.request('DELETE', `/v1/admin/users/${me.id}`, { token: ctx.session });
    expect(self.status).toBe(409);
    expect(await ctx.prisma.user.count({ where: { id: me.id } })).toBe(1);
  });
});
