import { randomUUID } from 'node:crypto';
import { publishEvent } from '@tollgate/webhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../../../../../test/support/context';
import { createTenant, createTenantKey } from '../../../../../test/support/fixtures';

// Deliveries are the worker's (apps/worker/src/webhooks/webhook-delivery.int-spec.ts); these are the endpoints, the
// delivery log and what is sent on demand. 127.0.0.1 is allowed so endpoints can name a local receiver.
describe('webhook endpoints API', () => {
  const ctx = useOperatorApi({ WEBHOOK_ALLOWED_DESTINATIONS: '127.0.0.1' });
  const url = 'http://127.0.0.1:9/hooks';
  let tenants: { a: string; b: string };
  let users: { a: string; b: string };
  let tenantKey: string;

  const admin = (method: string, path: string, body?: unknown) => ctx.api.request(method, `/v1/admin/webhooks${path}`, { token: ctx.session, body });
  const own = (token: string, method: string, path: string, body?: unknown) => ctx.api.request(method, `/v1/tenant/webhooks${path}`, { token, body });

  beforeAll(async () => {
    const [a, b] = [await createTenant(ctx.prisma), await createTenant(ctx.prisma)];
    tenants = { a: a.tenant.id, b: b.tenant.id };
    users = { a: await ctx.signIn('tenant', a.tenant.id), b: await ctx.signIn('tenant', b.tenant.id) };
    tenantKey = (await createTenantKey(ctx.prisma, a.tenant.id)).key;
  });

  it('creates an endpoint with a whsec_ secret shown once, never in reads or the audit log, and rotates it with an overlap', async () => {
    const created = await admin('POST', '', { url, description: 'alerts', eventTypes: ['quota.threshold_crossed', 'platform.degraded.firing'] });
    expect(created.status).toBe(201);
    const { secret, endpoint } = created.body;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(endpoint).toMatchObject({ tenantId: null, url, description: 'alerts', enabled: true, disabledReason: null, previousSecretExpiresAt: null });
    const read = await admin('GET', `/${endpoint.id}`);
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.body)).not.toContain(secret.slice(6));

    const rotated = await admin('POST', `/${endpoint.id}/rotate-secret`, { overlapSeconds: 3600 });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(secret);
    const overlapEnds = Date.parse(rotated.body.endpoint.previousSecretExpiresAt);
    expect(overlapEnds - Date.now()).toBeGreaterThan(3_500_000);
    expect(overlapEnds - Date.now()).toBeLessThanOrEqual(3_600_000);
    // With no body: the default overlap, 24 h.
    expect(Date.parse((await admin('POST', `/${endpoint.id}/rotate-secret`)).body.endpoint.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(86_000_000);

    const audit = await ctx.prisma.auditLog.findMany({ where: { entityType: 'webhook_endpoint', entityId: endpoint.id }, orderBy: { id: 'asc' } });
    expect(audit.map((a) => [a.action, a.actor])).toEqual([
      ['webhook_endpoint.created', `user:${ctx.operatorEmail}`],
      ['webhook_endpoint.secret_rotated', `user:${ctx.operatorEmail}`],
      ['webhook_endpoint.secret_rotated', `user:${ctx.operatorEmail}`],
    ]);
    const text = JSON.stringify(audit.map((a) => [a.before, a.after]));
    for (const s of [secret, rotated.body.secret]) expect(text).not.toContain(s.slice(6));
    expect(text).not.toContain('v1:');
  });

  /** A row of the refusals below: an endpoint at `bad` for webhook.test, refused naming the url with `message`. */
  const badUrl = (bad: string, message: string): [body: object, field: string, message: string] => [{ url: bad, eventTypes: ['webhook.test'] }, 'url', message];
  it.each([
    badUrl('ftp://127.0.0.1/x', 'must be an http or https URL'),
    badUrl('http://user:pw@127.0.0.1/x', 'must not contain credentials'),
    badUrl('http://127.0.0.1/\u0007', 'control characters'),
    badUrl('http://10.0.0.1/x', '10.0.0.1 is a private address'),
    badUrl('http://169.254.169.254/latest', 'linkLocal'),
    badUrl('http://[::1]:8080/x', 'loopback'),
    // IPv6 forms that carry an IPv4 address, judged by it (127.0.0.1 is allowed here: these carry other ones).
    badUrl('http://[::10.0.0.1]:8080/x', 'carries 10.0.0.1 (IPv4-compatible), a private address'),
    badUrl('http://[::ffff:0:a9fe:a9fe]/x', 'carries 169.254.169.254 (SIIT, IPv4-translated), a linkLocal'),
    badUrl('http://[64:ff9b::169.254.169.254]/x', 'carries 169.254.169.254 (NAT64), a linkLocal'),
    badUrl('http://[64:ff9b:1::192.168.0.1]/x', 'carries 192.168.0.1 (local-use NAT64), a private'),
    badUrl('http://[2002:a00:1::1]/x', 'carries 10.0.0.1 (6to4), a private'),
    badUrl('http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/x', 'carries 10.0.0.1 (Teredo), a private'),
    badUrl('http://localhost.:1/x', ''),
    [{ url, eventTypes: [] }, 'eventTypes', 'at least one'],
    [{ url, eventTypes: ['quota.exploded'] }, 'eventTypes.0', ''],
    [{ url, eventTypes: ['webhook.test', 'webhook.test'] }, 'eventTypes', 'repeat'],
    [{ url, eventTypes: ['webhook.test'], secret: 'whsec_mine' }, '', 'secret'],
    [{ url, eventTypes: ['platform.degraded.firing'], tenantId: '00000000-0000-4000-8000-000000000000' }, 'eventTypes', "a tenant's endpoint receives only"],
    [{ url, eventTypes: ['webhook.test'], tenantId: '00000000-0000-4000-8000-000000000000' }, 'tenantId', 'no tenant'],
    [{ url, eventTypes: ['webhook.test'], description: 'a\u0000b' }, 'description', ''],
    [{ url, eventTypes: ['webhook.test'], description: 'quota \u202Estrela' }, 'description', 'formatting characters (U+202E)'],
  ])('refuses %j with 400 validation_failed naming %s', async (body, field, message) => {
    const r = await admin('POST', '', body);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error.code).toBe('validation_failed');
    if (field) expect(r.body.error.field).toBe(field);
    expect(r.body.error.message).toContain(message);
  });

  it('answers 404 for an unknown endpoint and 409 for sending to a disabled one, and disables with a reason', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const [method, path, body] of [['GET', `/${unknown}`], ['PATCH', `/${unknown}`, { enabled: false }], ['DELETE', `/${unknown}`], ['POST', `/${unknown}/test`], ['GET', `/${unknown}/deliveries`]] as const) {
      const r = await admin(method, path, body);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
    const { endpoint } = (await admin('POST', '', { url, eventTypes: ['webhook.test'] })).body;
    const disabled = await admin('PATCH', `/${endpoint.id}`, { enabled: false });
    expect(disabled.body).toMatchObject({ enabled: false, disabledReason: expect.stringContaining(`disabled by user:${ctx.operatorEmail}`) });
    const refused = await admin('POST', `/${endpoint.id}/test`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
    expect((await admin('PATCH', `/${endpoint.id}`, { enabled: true })).body).toMatchObject({ enabled: true, disabledReason: null });
    expect((await admin('PATCH', `/${endpoint.id}`, {})).status).toBe(400);
    expect((await admin('DELETE', `/${endpoint.id}`)).status).toBe(204);
    expect((await admin('GET', `/${endpoint.id}`)).status).toBe(404);
  });

  it('sends a test event to one endpoint, lists its deliveries, resends an event and replays a time range', async () => {
    const { endpoint } = (await admin('POST', '', { url, eventTypes: ['quota.threshold_crossed', 'webhook.test'] })).body;
    const test = await admin('POST', `/${endpoint.id}/test`);
    expect(test.status).toBe(202);
    expect(test.body).toEqual({ eventIds: [expect.stringMatching(/^msg_/)], deliveries: 1 });
    // Published the way an alert publishes (in its own transaction), before and after `from`.
    const publish = () =>
      ctx.prisma.$transaction((tx) => publishEvent(tx, { type: 'quota.threshold_crossed', tenantId: tenants.a, dedupKey: randomUUID(), data: { threshold: 0.9 } }));
    const early = await publish();
    const from = new Date().toISOString();
    const [e1, e2] = [await publish(), await publish()];
    const page = await admin('GET', `/${endpoint.id}/deliveries?pageSize=2`);
    expect(page.status).toBe(200);
    expect(page.body.items.map((d: { eventId: string }) => d.eventId)).toEqual([e2.id, e1.id]);
    expect(page.body.items[0]).toMatchObject({ eventType: 'quota.threshold_crossed', status: 'pending', attempts: 0, attemptLog: [] });
    const next = await admin('GET', `/${endpoint.id}/deliveries?pageSize=2&cursor=${page.body.nextCursor}`);
    expect(next.body.items.map((d: { eventId: string }) => d.eventId)).toEqual([early.id, test.body.eventIds[0]]);

    // Waiting deliveries are left alone; a failed one is replayed, and every one with include: all.
    const to = new Date(Date.now() + 1000).toISOString();
    expect((await admin('POST', `/${endpoint.id}/replay`, { from, to })).body).toEqual({ eventIds: [], deliveries: 0 });
    await ctx.prisma.webhookDelivery.updateMany({ where: { endpointId: endpoint.id }, data: { status: 'failed', nextAttemptAt: null } });
    await ctx.prisma.webhookDelivery.updateMany({ where: { endpointId: endpoint.id, eventId: e2.id }, data: { status: 'delivered' } });
    expect((await admin('POST', `/${endpoint.id}/replay`, { from, to })).body).toEqual({ eventIds: [e1.id], deliveries: 1 });
    expect((await admin('POST', `/${endpoint.id}/replay`, { from, to, include: 'all' })).body).toEqual({ eventIds: [e2.id], deliveries: 1 });
    const bad = await admin('POST', `/${endpoint.id}/replay`, { from: to, to: from });
    expect([bad.status, bad.body.error.field]).toEqual([400, 'to']);

    const resent = await admin('POST', `/${endpoint.id}/resend`, { eventId: early.id });
    expect(resent.body).toEqual({ eventIds: [early.id], deliveries: 1 });
    expect(await ctx.prisma.webhookDelivery.count({ where: { endpointId: endpoint.id, eventId: early.id } })).toBe(2);
    // The event id is the same, so is the webhook-id: one event, two deliveries.
    expect(await ctx.prisma.webhookEvent.count({ where: { id: early.id } })).toBe(1);
    const never = await admin('POST', `/${endpoint.id}/resend`, { eventId: 'msg_000000000000000000000000' });
    expect(never.status).toBe(404);
    expect((await admin('POST', `/${endpoint.id}/resend`, { eventId: 'evt_1' })).body.error).toMatchObject({ code: 'validation_failed', field: 'eventId' });
  });

  describe("a tenant's own endpoints", () => {
    it('lets a tenant user manage its own endpoints for its quota events only', async () => {
      const created = await own(users.a, 'POST', '', { url, eventTypes: ['quota.threshold_crossed'] });
      expect(created.status).toBe(201);
      expect(created.body.endpoint.tenantId).toBe(tenants.a);
      expect(created.body.secret).toMatch(/^whsec_/);
      const platform = await own(users.a, 'POST', '', { url, eventTypes: ['platform.degraded.firing'] });
      expect(platform.body.error).toMatchObject({ code: 'validation_failed', field: 'eventTypes' });
      // tenantId is not the tenant's to say: refused, never used.
      const smuggled = await own(users.a, 'POST', '', { url, eventTypes: ['quota.threshold_crossed'], tenantId: tenants.b });
      expect(smuggled.status).toBe(400);
      const list = await own(users.a, 'GET', '');
      expect(list.body.items.map((e: { tenantId: string }) => e.tenantId)).toEqual(list.body.items.map(() => tenants.a));
      expect(list.body.items.map((e: { id: string }) => e.id)).toContain(created.body.endpoint.id);
      expect((await own(users.a, 'POST', `/${created.body.endpoint.id}/test`)).status).toBe(202);
      expect((await own(users.a, 'GET', `/${created.body.endpoint.id}/deliveries`)).body.items).toHaveLength(1);
      // The operator sees it, as one of tenant A's.
      expect((await admin('GET', `?owner=${tenants.a}`)).body.items.map((e: { id: string }) => e.id)).toContain(created.body.endpoint.id);
    });

    it("never reaches another tenant's endpoint: not found, whatever the route", async () => {
      const theirs = (await own(users.b, 'POST', '', { url, eventTypes: ['quota.window_reset'] })).body.endpoint;
      expect((await own(users.a, 'GET', '')).body.items.map((e: { id: string }) => e.id)).not.toContain(theirs.id);
      for (const [method, path, body] of [
        ['GET', `/${theirs.id}`],
        ['PATCH', `/${theirs.id}`, { enabled: false }],
        ['PATCH', `/${theirs.id}`, { nonsense: true }],
        ['DELETE', `/${theirs.id}`],
        ['POST', `/${theirs.id}/rotate-secret`],
        ['POST', `/${theirs.id}/test`],
        ['GET', `/${theirs.id}/deliveries`],
        ['POST', `/${theirs.id}/resend`, { eventId: 'msg_000000000000000000000000' }],
        ['POST', `/${theirs.id}/replay`, { from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' }],
      ] as const) {
        const r = await own(users.a, method, path, body);
        expect([r.status, r.body?.error?.code], `${method} ${path}`).toEqual([404, 'not_found']);
      }
      expect((await own(users.b, 'GET', `/${theirs.id}`)).body).toMatchObject({ enabled: true, tenantId: tenants.b });
    });

    it('lets a tenant key read its endpoints and change nothing', async () => {
      expect((await own(tenantKey, 'GET', '')).status).toBe(200);
      const r = await own(tenantKey, 'POST', '', { url, eventTypes: ['quota.threshold_crossed'] });
      expect([r.status, r.body.error.code]).toEqual([403, 'forbidden']);
      expect((await ctx.api.request('GET', '/v1/admin/webhooks', { token: users.a })).status).toBe(403);
    });
  });

  // E-mail endpoints are webhook endpoints with `channel: email` (docs/adr/0017-webhooks.md, "Channels"): the same
  // routes, audit, deliveries and sends; their mail is the worker's (apps/worker/src/webhooks/email-delivery.int-spec.ts).
  describe('e-mail endpoints', () => {
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
});
