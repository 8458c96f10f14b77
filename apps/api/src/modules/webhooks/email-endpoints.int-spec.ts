import { beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../../../../../test/support/context';
import { createTenant } from '../../../../../test/support/fixtures';

// E-mail endpoints are webhook endpoints with `channel: email` (docs/adr/0017-webhooks.md, "Channels"): the same
// routes, audit, deliveries and sends; their mail is the worker's (apps/worker/src/webhooks/email-delivery.int-spec.ts).
describe('e-mail endpoints API', () => {
  const ctx = useOperatorApi({ WEBHOOK_ALLOWED_DESTINATIONS: '127.0.0.1' });
  let tenants: { a: string; b: string };
  let users: { a: string; b: string };

  const admin = (method: string, path: string, body?: unknown) => ctx.api.request(method, `/v1/admin/webhooks${path}`, { token: ctx.session, body });
  const own = (token: string, method: string, path: string, body?: unknown) => ctx.api.request(method, `/v1/tenant/webhooks${path}`, { token, body });

  beforeAll(async () => {
    const [a, b] = [await createTenant(ctx.prisma), await createTenant(ctx.prisma)];
    tenants = { a: a.tenant.id, b: b.tenant.id };
    users = { a: await ctx.signIn('tenant', a.tenant.id), b: await ctx.signIn('tenant', b.tenant.id) };
  });

  it('creates an e-mail endpoint without a secret, shows its channel and address, audits it, and refuses a rotation', async () => {
    const created = await admin('POST', '', { channel: 'email', email: 'oncall@example.com', description: 'on call', eventTypes: ['platform.degraded.firing'] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.secret).toBeNull();
    const { endpoint } = created.body;
    expect(endpoint).toMatchObject({ channel: 'email', email: 'oncall@example.com', url: 'mailto:oncall@example.com', tenantId: null, enabled: true });
    expect((await admin('GET', `/${endpoint.id}`)).body).toEqual(endpoint);

    const changed = await admin('PATCH', `/${endpoint.id}`, { email: 'pager@example.com' });
    expect(changed.body).toMatchObject({ email: 'pager@example.com', url: 'mailto:pager@example.com' });
    const wrong = await admin('PATCH', `/${endpoint.id}`, { url: 'http://127.0.0.1:9/x' });
    expect([wrong.status, wrong.body.error.code, wrong.body.error.field]).toEqual([400, 'validation_failed', 'url']);
    const rotate = await admin('POST', `/${endpoint.id}/rotate-secret`);
    expect([rotate.status, rotate.body.error.code]).toEqual([409, 'conflict']);
    // Test, disable, enable: as for a webhook.
    expect((await admin('POST', `/${endpoint.id}/test`)).status).toBe(202);
    expect((await admin('PATCH', `/${endpoint.id}`, { enabled: false })).body).toMatchObject({ enabled: false });

    const audit = await ctx.prisma.auditLog.findMany({ where: { entityType: 'webhook_endpoint', entityId: endpoint.id }, orderBy: { id: 'asc' } });
    expect(audit.map((a) => a.action)).toEqual(['webhook_endpoint.created', 'webhook_endpoint.updated', 'webhook_endpoint.tested', 'webhook_endpoint.updated']);
    // A webhook endpoint answers channel webhook and no e-mail, as before.
    const hook = await admin('POST', '', { url: 'http://127.0.0.1:9/hooks', eventTypes: ['webhook.test'] });
    expect(hook.body.endpoint).toMatchObject({ channel: 'webhook', email: null, url: 'http://127.0.0.1:9/hooks' });
    expect(hook.body.secret).toMatch(/^whsec_/);
    const patched = await admin('PATCH', `/${hook.body.endpoint.id}`, { email: 'x@example.com' });
    expect([patched.status, patched.body.error.field]).toEqual([400, 'email']);
  });

  it.each([
    [{ channel: 'email', email: 'not-an-address' }, 'email', 'must be an e-mail address'],
    [{ channel: 'email', email: 'a@example.com\r\nBcc: victim@example.com' }, 'email', 'control characters'],
    [{ channel: 'email', email: 'a@example.com\nBcc:b@example.com' }, 'email', 'control characters'],
    [{ channel: 'email', email: 'a@example.com, b@example.com' }, 'email', 'one address alone'],
    [{ channel: 'email', email: 'Eve <a@example.com>' }, 'email', 'one address alone'],
    [{ channel: 'email', email: '"a b"@example.com' }, 'email', 'one address alone'],
    [{ channel: 'email', email: `${'a'.repeat(250)}@example.com` }, 'email', 'at most 254'],
    [{ channel: 'email' }, 'email', 'is required for an e-mail endpoint'],
    [{ channel: 'email', email: 'a@example.com', url: 'http://127.0.0.1:9/x' }, 'url', 'is not for an e-mail endpoint'],
    [{ email: 'a@example.com' }, 'email', 'set channel: email'],
    [{ channel: 'sms', email: 'a@example.com' }, 'channel', ''],
  ])('refuses %j with 400 validation_failed naming %s', async (fields, field, message) => {
    const r = await admin('POST', '', { eventTypes: ['webhook.test'], ...fields });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error.code).toBe('validation_failed');
    expect(r.body.error.field).toBe(field);
    expect(r.body.error.message).toContain(message);
  });

  it("lets a tenant user add e-mail endpoints for its own quota events only, and never shows another tenant's", async () => {
    const mine = await own(users.a, 'POST', '', { channel: 'email', email: 'a-team@example.com', eventTypes: ['quota.threshold_crossed'] });
    expect(mine.status).toBe(201);
    expect(mine.body.endpoint).toMatchObject({ tenantId: tenants.a, channel: 'email', email: 'a-team@example.com' });
    const platform = await own(users.a, 'POST', '', { channel: 'email', email: 'a-team@example.com', eventTypes: ['platform.degraded.firing'] });
    expect(platform.body.error).toMatchObject({ code: 'validation_failed', field: 'eventTypes' });

    const theirs = (await own(users.b, 'POST', '', { channel: 'email', email: 'b-team@example.com', eventTypes: ['quota.window_reset'] })).body.endpoint;
    const listed = (await own(users.a, 'GET', '')).body.items.map((e: { id: string }) => e.id);
    expect(listed).toContain(mine.body.endpoint.id);
    expect(listed).not.toContain(theirs.id);
    for (const [method, path, body] of [
      ['GET', `/${theirs.id}`],
      ['PATCH', `/${theirs.id}`, { email: 'hijack@example.com' }],
      ['DELETE', `/${theirs.id}`],
      ['POST', `/${theirs.id}/test`],
      ['GET', `/${theirs.id}/deliveries`],
    ] as const) {
      const r = await own(users.a, method, path, body);
      expect([r.status, r.body?.error?.code], `${method} ${path}`).toEqual([404, 'not_found']);
    }
    expect((await own(users.b, 'GET', `/${theirs.id}`)).body).toMatchObject({ email: 'b-team@example.com', enabled: true });
  });
});
