import { randomUUID } from 'node:crypto';
import { publishEvent } from '@tollgate/webhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../support/context';
import { createTenant } from '../support/fixtures';

// What a tenant's users can make the platform send and store (docs/reliability.md#self-service-abuse): caps on its
// webhook endpoints and alert rules (409 cap_reached), budgets of sends by hand and of endpoint changes (429 with
// Retry-After), all on Tollgate's own limiter. Small numbers so that the tests reach them.
const TENANT_SENDS = 5;
const OPERATOR_SENDS = 8;
const ENDPOINTS = 3;
const ALERT_RULES = 2;

describe('self-service cannot be turned into a weapon', () => {
  const ctx = useOperatorApi({
    WEBHOOK_ALLOWED_DESTINATIONS: '127.0.0.1',
    WEBHOOK_SENDS_PER_MINUTE_PER_TENANT: String(TENANT_SENDS),
    WEBHOOK_SENDS_PER_MINUTE_PER_OPERATOR: String(OPERATOR_SENDS),
    WEBHOOK_ENDPOINTS_PER_TENANT: String(ENDPOINTS),
    ALERT_RULES_PER_TENANT: String(ALERT_RULES),
    // Endpoint changes have a describe block of their own.
    WEBHOOK_CHANGES_PER_MINUTE_PER_TENANT: '100000',
  });
  const url = 'http://127.0.0.1:9/hooks';
  const hook = { url, eventTypes: ['quota.threshold_crossed', 'webhook.test'] };

  /** A new tenant with a signed-in user of it. */
  const aTenant = async () => {
    const { tenant } = await createTenant(ctx.prisma);
    return { id: tenant.id, user: await ctx.signIn('tenant', tenant.id) };
  };
  const own = (token: string, method: string, path: string, body?: unknown) => ctx.api.request(method, `/v1/tenant/webhooks${path}`, { token, body });
  const admin = (method: string, path: string, body?: unknown) => ctx.api.request(method, path, { token: ctx.session, body });
  const audited = (action: string, entityId?: string) => ctx.prisma.auditLog.count({ where: { action, ...(entityId ? { entityId } : {}) } });

  it('documents the answers in the OpenAPI document: 429 on every send by hand and tenant change, 409 cap_reached where a capped thing is made', async () => {
    const paths = (await ctx.api.request('GET', '/docs-json')).body.paths as Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
    const answers = (method: string, path: string) => paths[path]![method]!.responses;
    for (const owner of ['admin', 'tenant']) {
      for (const send of ['test', 'resend', 'replay']) expect(answers('post', `/v1/${owner}/webhooks/{endpointId}/${send}`)['429']?.description, `${owner} ${send}`).toMatch(/^rate_limited: past the sends by hand/);
      expect(answers('post', `/v1/${owner}/webhooks`)['409']?.description).toMatch(/^cap_reached/);
    }
    for (const [method, path] of [['post', ''], ['patch', '/{endpointId}'], ['delete', '/{endpointId}'], ['post', '/{endpointId}/rotate-secret']] as const) {
      expect(answers(method, `/v1/tenant/webhooks${path}`)['429']?.description, `${method} ${path}`).toMatch(/^rate_limited: past the tenant's endpoint changes/);
    }
    expect(answers('post', '/v1/admin/alert-rules')['409']?.description).toContain('cap_reached');
    expect(answers('get', '/v1/admin/tenants/{tenantId}/caps')['200']).toBeDefined();
    expect(answers('get', '/v1/tenant/caps')['200']).toBeDefined();
  });

  describe('caps', () => {
    it("makes exactly a tenant's cap of endpoints from 20 creations at once; the rest are 409 cap_reached, nothing stored or audited", async () => {
      const tenant = await aTenant();
      const answers = await Promise.all(Array.from({ length: 20 }, () => own(tenant.user, 'POST', '', hook)));
      expect(answers.filter((r) => r.status === 201), JSON.stringify(answers.map((r) => r.body))).toHaveLength(ENDPOINTS);
      const refused = answers.filter((r) => r.status !== 201);
      expect(refused).toHaveLength(20 - ENDPOINTS);
      for (const r of refused) {
        expect(r.status).toBe(409);
        expect(r.body).toEqual({ error: { code: 'cap_reached', message: expect.stringContaining(`as many as its cap of ${ENDPOINTS} allows`) } });
        expect(r.headers.get('retry-after')).toBeNull();
      }
      const ids = await ctx.prisma.webhookEndpoint.findMany({ where: { tenantId: tenant.id }, select: { id: true } });
      expect(ids).toHaveLength(ENDPOINTS);
      expect(await ctx.prisma.auditLog.count({ where: { action: 'webhook_endpoint.created', entityId: { in: ids.map((e) => e.id) } } })).toBe(ENDPOINTS);
      expect((await own(tenant.user, 'GET', '')).body.items).toHaveLength(ENDPOINTS);
      // The operator's route makes the tenant's endpoints too: the same cap.
      const byOperator = await admin('POST', '/v1/admin/webhooks', { ...hook, eventTypes: ['quota.threshold_crossed'], tenantId: tenant.id });
      expect([byOperator.status, byOperator.body.error.code]).toEqual([409, 'cap_reached']);
      // A deleted one makes room for one.
      expect((await own(tenant.user, 'DELETE', `/${ids[0]!.id}`)).status).toBe(204);
      expect((await own(tenant.user, 'POST', '', hook)).status).toBe(201);
      expect((await own(tenant.user, 'POST', '', hook)).status).toBe(409);
    });

    it('lets a tenant make more once an operator raises its cap (a tenant change, audited); null is the default again, and takes nothing away', async () => {
      const tenant = await aTenant();
      for (let i = 0; i < ENDPOINTS; i += 1) expect((await own(tenant.user, 'POST', '', hook)).status).toBe(201);
      expect((await own(tenant.user, 'POST', '', hook)).status).toBe(409);
      const before = (await ctx.api.request('GET', '/v1/tenant/caps', { token: tenant.user })).body;
      expect(before).toEqual({
        webhookEndpoints: { used: ENDPOINTS, cap: ENDPOINTS, own: null, defaultCap: ENDPOINTS },
        alertRules: { used: 0, cap: ALERT_RULES, own: null, defaultCap: ALERT_RULES },
      });

      const raised = await admin('PATCH', `/v1/admin/tenants/${tenant.id}`, { caps: { webhookEndpoints: ENDPOINTS + 2 } });
      expect(raised.status, JSON.stringify(raised.body)).toBe(200);
      expect(raised.body.tenant.caps).toEqual({ webhookEndpoints: ENDPOINTS + 2, alertRules: null });
      const change = await ctx.prisma.auditLog.findFirstOrThrow({ where: { action: 'tenant.updated', entityId: tenant.id }, orderBy: { id: 'desc' } });
      expect([change.actor, (change.before as { caps: unknown }).caps, (change.after as { caps: unknown }).caps]).toEqual([
        `user:${ctx.operatorEmail}`,
        { webhookEndpoints: null, alertRules: null },
        { webhookEndpoints: ENDPOINTS + 2, alertRules: null },
      ]);
      expect((await own(tenant.user, 'POST', '', hook)).status).toBe(201);
      expect((await own(tenant.user, 'POST', '', hook)).status).toBe(201);
      expect((await own(tenant.user, 'POST', '', hook)).body.error.code).toBe('cap_reached');
      expect((await admin('GET', `/v1/admin/tenants/${tenant.id}/caps`)).body.webhookEndpoints).toEqual({ used: ENDPOINTS + 2, cap: ENDPOINTS + 2, own: ENDPOINTS + 2, defaultCap: ENDPOINTS });

      // Back to the default (lower than what it has): every endpoint stays, no new one is made.
      expect((await admin('PATCH', `/v1/admin/tenants/${tenant.id}`, { caps: { webhookEndpoints: null } })).status).toBe(200);
      expect((await admin('GET', `/v1/admin/tenants/${tenant.id}/caps`)).body.webhookEndpoints).toEqual({ used: ENDPOINTS + 2, cap: ENDPOINTS, own: null, defaultCap: ENDPOINTS });
      expect(await ctx.prisma.webhookEndpoint.count({ where: { tenantId: tenant.id } })).toBe(ENDPOINTS + 2);
      expect((await own(tenant.user, 'POST', '', hook)).status).toBe(409);
    });

    it('refuses caps that are not whole numbers from 0 to 10,000, naming the field, and changes nothing', async () => {
      const tenant = await aTenant();
      for (const caps of [{ webhookEndpoints: -1 }, { webhookEndpoints: 1.5 }, { alertRules: 10_001 }, { webhookEndpoints: '20' }, {}, { webhooks: 5 }]) {
        const r = await admin('PATCH', `/v1/admin/tenants/${tenant.id}`, { caps });
        expect(r.status, JSON.stringify(caps)).toBe(400);
        expect(r.body.error.code).toBe('validation_failed');
        expect(r.body.error.field).toMatch(/^caps/);
      }
      expect(await audited('tenant.updated', tenant.id)).toBe(0);
      // A tenant may be given no endpoints at all.
      expect((await admin('PATCH', `/v1/admin/tenants/${tenant.id}`, { caps: { webhookEndpoints: 0 } })).status).toBe(200);
      expect((await own(tenant.user, 'POST', '', hook)).body.error.code).toBe('cap_reached');
    });

    it("caps the alert rules about a tenant, not a plan's", async () => {
      const { plan, tenant } = await createTenant(ctx.prisma);
      const rule = (name: string, scope: object) => admin('POST', '/v1/admin/alert-rules', { name: `${name} ${randomUUID().slice(0, 8)}`, kind: 'quota_threshold', ...scope });
      for (let i = 0; i < ALERT_RULES; i += 1) expect((await rule('near quota', { tenantId: tenant.id })).status).toBe(201);
      const refused = await rule('one too many', { tenantId: tenant.id });
      expect(refused.status).toBe(409);
      expect(refused.body.error).toEqual({ code: 'cap_reached', message: expect.stringContaining(`2 alert rules, as many as its cap of ${ALERT_RULES} allows`) });
      expect(await ctx.prisma.alertRule.count({ where: { tenantId: tenant.id } })).toBe(ALERT_RULES);
      expect((await rule('for the plan', { planId: plan.id })).status).toBe(201);
      expect((await admin('PATCH', `/v1/admin/tenants/${tenant.id}`, { caps: { alertRules: ALERT_RULES + 1 } })).status).toBe(200);
      expect((await rule('one more', { tenantId: tenant.id })).status).toBe(201);
      expect((await rule('and no more', { tenantId: tenant.id })).body.error.code).toBe('cap_reached');
    });
  });

  describe('sends by hand', () => {
    let tenant: { id: string; user: string };
    let endpointId: string;
    beforeAll(async () => {
      tenant = await aTenant();
      endpointId = (await own(tenant.user, 'POST', '', hook)).body.endpoint.id;
    });

    it("admits a minute's test sends of a tenant from 40 at once: the rest are 429 rate_limited with Retry-After, nothing queued or audited", async () => {
      const answers = await Promise.all(Array.from({ length: 40 }, () => own(tenant.user, 'POST', `/${endpointId}/test`)));
      expect(answers.filter((r) => r.status === 202)).toHaveLength(TENANT_SENDS);
      const refused = answers.filter((r) => r.status !== 202);
      for (const r of refused) {
        expect(r.status).toBe(429);
        expect(r.body).toEqual({ error: { code: 'rate_limited', message: expect.stringMatching(/^too many webhook sends by this tenant: at most 5 a minute .*; try again in \d+ seconds?$/) } });
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(Number(r.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      }
      expect(await ctx.prisma.webhookDelivery.count({ where: { endpointId } })).toBe(TENANT_SENDS);
      expect(await ctx.prisma.webhookEvent.count({ where: { type: 'webhook.test', deliveries: { some: { endpointId } } } })).toBe(TENANT_SENDS);
      expect(await audited('webhook_endpoint.tested', endpointId)).toBe(TENANT_SENDS);
      // Resends and replays draw on the same budget.
      const event = (await ctx.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId } })).eventId;
      expect((await own(tenant.user, 'POST', `/${endpointId}/resend`, { eventId: event })).status).toBe(429);
      const range = { from: new Date(Date.now() - 60_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() };
      expect((await own(tenant.user, 'POST', `/${endpointId}/replay`, range)).status).toBe(429);
      // Another tenant's budget is its own.
      const other = await aTenant();
      const theirs = (await own(other.user, 'POST', '', hook)).body.endpoint.id;
      expect((await own(other.user, 'POST', `/${theirs}/test`)).status).toBe(202);
    });

    it("replays at most a minute's sends a call, each event counted; one the budget cannot cover is refused whole", async () => {
      const replayer = await aTenant();
      const endpoint = (await own(replayer.user, 'POST', '', { url, eventTypes: ['quota.threshold_crossed'] })).body.endpoint.id;
      const from = new Date().toISOString();
      for (let i = 0; i < TENANT_SENDS + 3; i += 1) {
        await ctx.prisma.$transaction((tx) => publishEvent(tx, { type: 'quota.threshold_crossed', tenantId: replayer.id, dedupKey: randomUUID(), data: { threshold: 0.9 } }));
      }
      await ctx.prisma.webhookDelivery.updateMany({ where: { endpointId: endpoint }, data: { status: 'failed', nextAttemptAt: null } });
      const range = { from, to: new Date(Date.now() + 1000).toISOString() };
      const first = await own(replayer.user, 'POST', `/${endpoint}/replay`, range);
      expect(first.status).toBe(202);
      expect(first.body.deliveries).toBe(TENANT_SENDS);
      const second = await own(replayer.user, 'POST', `/${endpoint}/replay`, range);
      expect(second.status).toBe(429);
      expect(second.body.error.code).toBe('rate_limited');
      expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await ctx.prisma.webhookDelivery.count({ where: { endpointId: endpoint, status: 'pending' } })).toBe(TENANT_SENDS);
      expect(await audited('webhook_endpoint.replayed', endpoint)).toBe(1);
    });

    it("bounds an operator's sends that fan out (test sends to many endpoints, replays), per operator", async () => {
      const fanned = await aTenant();
      await admin('PATCH', `/v1/admin/tenants/${fanned.id}`, { caps: { webhookEndpoints: 20 } });
      const endpoints: string[] = [];
      for (let i = 0; i < OPERATOR_SENDS + 2; i += 1) {
        endpoints.push((await admin('POST', '/v1/admin/webhooks', { ...hook, eventTypes: ['webhook.test'], tenantId: fanned.id })).body.endpoint.id);
      }
      const answers = await Promise.all(endpoints.map((id) => admin('POST', `/v1/admin/webhooks/${id}/test`)));
      expect(answers.filter((r) => r.status === 202)).toHaveLength(OPERATOR_SENDS);
      const refused = answers.filter((r) => r.status === 429);
      expect(refused).toHaveLength(2);
      expect(refused[0]!.body.error.message).toMatch(/^too many webhook sends by you: at most 8 a minute/);
      expect(await ctx.prisma.webhookDelivery.count({ where: { endpointId: { in: endpoints } } })).toBe(OPERATOR_SENDS);
      // Another operator has a budget of its own; the tenant's users theirs.
      const other = await ctx.signIn('operator');
      expect((await ctx.api.request('POST', `/v1/admin/webhooks/${endpoints[0]}/test`, { token: other })).status).toBe(202);
      expect((await own(fanned.user, 'POST', `/${endpoints[0]}/test`)).status).toBe(202);
    });
  });

});

describe("a tenant's endpoint changes", () => {
  const CHANGES = 4;
  const ctx = useOperatorApi({ WEBHOOK_ALLOWED_DESTINATIONS: '127.0.0.1', WEBHOOK_CHANGES_PER_MINUTE_PER_TENANT: String(CHANGES) });
  const own = (token: string, method: string, path: string, body?: unknown) => ctx.api.request(method, `/v1/tenant/webhooks${path}`, { token, body });

  it('are limited a minute, whatever the change (429 with Retry-After, nothing changed); the operator\'s are not counted', async () => {
    const { tenant } = await createTenant(ctx.prisma);
    const user = await ctx.signIn('tenant', tenant.id);
    const endpoint = (await own(user, 'POST', '', { url: 'http://127.0.0.1:9/hooks', eventTypes: ['quota.threshold_crossed'] })).body.endpoint.id;
    const statuses: number[] = [];
    for (let i = 1; i <= CHANGES; i += 1) statuses.push((await own(user, 'PATCH', `/${endpoint}`, { description: `change ${i}` })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await own(user, 'DELETE', `/${endpoint}`);
    expect(refused.body).toEqual({ error: { code: 'rate_limited', message: expect.stringMatching(/^too many webhook endpoint changes by this tenant: at most 4 a minute; try again in \d+ seconds?$/) } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await ctx.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint } })).description).toBe('change 3');
    expect((await ctx.api.request('PATCH', `/v1/admin/webhooks/${endpoint}`, { token: ctx.session, body: { description: 'by the operator' } })).status).toBe(200);
  });
});
