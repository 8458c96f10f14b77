import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../support/context';
import { TEST_REDIS_URL } from '../support/env';
import { createServiceKey, createTenant, createTenantKey, createUser, publishRules } from '../support/fixtures';
import { answers, documented, type OpenApiPaths } from '../support/openapi';

// Tenant isolation and deny-by-default: every route × every kind of caller gets the expected status; guards deny by
// default. A route missing from MATRIX fails the test. Callers: anonymous; tenant A's service key (restricted
// to tenant A); a user of tenant A; a tenant key of tenant A; a user of tenant B; an operator. That tenant
// callers only ever see their own tenant's data is shown by modules/tenant-self/tenant-self.int-spec.ts.
const CALLERS = ['anonymous', 'service', 'tenantUser', 'tenantKey', 'otherTenant', 'operator'] as const;
type Caller = (typeof CALLERS)[number];
type Expect = Record<Caller, number>;

const NOT_OPERATORS = { service: 403, tenantUser: 403, tenantKey: 403, otherTenant: 403 };
const PUBLIC: Expect = { anonymous: 200, operator: 200, tenantUser: 200, tenantKey: 200, otherTenant: 200, service: 200 };
const OPERATOR_READ: Expect = { anonymous: 401, operator: 200, ...NOT_OPERATORS };
const OPERATOR_WRITE_REFUSED = (status: number): Expect => ({ anonymous: 401, operator: status, ...NOT_OPERATORS });
/** Enforcement routes: service keys only (this one restricted to the tenant it checks). */
const SERVICE_ONLY: Expect = { anonymous: 401, operator: 403, tenantUser: 403, tenantKey: 403, otherTenant: 403, service: 200 };
const GATEWAY_HEADER_ONLY: Expect = { anonymous: 401, operator: 401, tenantUser: 401, tenantKey: 401, otherTenant: 401, service: 401 };
/** `/metrics` on the API's port: only the scrape token, which no caller below holds. */
const METRICS_TOKEN_ONLY: Expect = { anonymous: 401, operator: 401, tenantUser: 401, tenantKey: 401, otherTenant: 401, service: 401 };
/** The read-only tenant API: each tenant caller reads its own tenant. */
const TENANT_READ: Expect = { anonymous: 401, operator: 403, service: 403, tenantUser: 200, tenantKey: 200, otherTenant: 200 };

interface Row {
  method: string;
  url: string;
  /** The concrete path and body to call it with. */
  call: (ids: Ids) => { path: string; body?: unknown };
  expect: Expect;
}
interface Ids {
  tenantId: string;
  planId: string;
  limitId: string;
  tenant: string;
  policyId: string;
}

/** A GET of `url` as it is written (no ids in it). */
const get = (url: string, expect: Expect): Row => ({ method: 'GET', url, call: () => ({ path: url }), expect });

const MATRIX: Row[] = [
  get('/health', PUBLIC),
  get('/health/ready', PUBLIC),
  // Prometheus scrapes with its own token (METRICS_TOKEN, set for test APIs), which is none of these callers'
  // credentials: every one of them is 401, an operator's session too (metrics.int-spec.ts: 200 with the token).
  get('/metrics', METRICS_TOKEN_ONLY),
  {
    method: 'POST', url: '/v1/auth/login',
    // A fresh unknown account for each call: sign-in attempts are rate limited per account.
    call: () => ({ path: '/v1/auth/login', body: { email: `nobody-${randomUUID()}@test.local`, password: 'wrong' } }),
    expect: { anonymous: 401, operator: 401, tenantUser: 401, tenantKey: 401, otherTenant: 401, service: 401 },
  },
  // Users have a profile; keys do not.
  get('/v1/auth/me', { ...TENANT_READ, operator: 200, tenantKey: 403 }),
  get('/v1/tenant', TENANT_READ),
  get('/v1/tenant/limits', TENANT_READ),
  get('/v1/tenant/keys', TENANT_READ),
  get('/v1/tenant/caps', TENANT_READ),
  get('/v1/tenant/alerts', TENANT_READ),
  get('/v1/tenant/usage', TENANT_READ),
  get('/v1/tenant/usage/denials', TENANT_READ),
  get('/v1/tenant/usage/routes', TENANT_READ),
  get('/v1/tenant/usage.csv', TENANT_READ),
  get('/v1/admin/usage', OPERATOR_READ),
  get('/v1/admin/usage/top', OPERATOR_READ),
  get('/v1/admin/usage/routes', OPERATOR_READ),
  { method: 'GET', url: '/v1/admin/usage/denials', call: (ids) => ({ path: `/v1/admin/usage/denials?tenant=${ids.tenant}` }), expect: OPERATOR_READ },
  { method: 'GET', url: '/v1/admin/usage/would-deny', call: (ids) => ({ path: `/v1/admin/usage/would-deny?policy=${ids.policyId}` }), expect: OPERATOR_READ },
  get('/v1/admin/usage/degraded', OPERATOR_READ),
  { method: 'GET', url: '/v1/admin/usage/summary', call: (ids) => ({ path: `/v1/admin/usage/summary?by=tenants&id=${ids.tenantId}` }), expect: OPERATOR_READ },
  get('/v1/admin/usage.csv', OPERATOR_READ),
  get('/v1/admin/users', OPERATOR_READ),
  { method: 'GET', url: '/v1/admin/users/:userId', call: () => ({ path: '/v1/admin/users/00000000-0000-4000-8000-000000000000' }), expect: OPERATOR_WRITE_REFUSED(404) },
  { method: 'POST', url: '/v1/admin/users', call: () => ({ path: '/v1/admin/users', body: { email: 'x' } }), expect: OPERATOR_WRITE_REFUSED(400) },
  { method: 'PATCH', url: '/v1/admin/users/:userId', call: () => ({ path: '/v1/admin/users/00000000-0000-4000-8000-000000000000', body: { name: 'x' } }), expect: OPERATOR_WRITE_REFUSED(404) },
  { method: 'DELETE', url: '/v1/admin/users/:userId', call: () => ({ path: '/v1/admin/users/00000000-0000-4000-8000-000000000000' }), expect: OPERATOR_WRITE_REFUSED(404) },
  get('/v1/admin/plans', OPERATOR_READ),
  { method: 'GET', url: '/v1/admin/plans/at-limit', call: (ids) => ({ path: `/v1/admin/plans/at-limit?id=${ids.planId}` }), expect: OPERATOR_READ },
  { method: 'GET', url: '/v1/admin/plans/:planId', call: (ids) => ({ path: `/v1/admin/plans/${ids.planId}` }), expect: OPERATOR_READ },
  // Webhooks: the operator's routes answer an unknown endpoint 404 and a bad body 400; a tenant's own answer its users
  // (an unknown endpoint is 404) and refuse its keys any change (403), whatever the body.
  get('/v1/admin/webhooks', OPERATOR_READ),
  { method: 'POST', url: '/v1/admin/webhooks', call: () => ({ path: '/v1/admin/webhooks', body: {} }), expect: OPERATOR_WRITE_REFUSED(400) },
  ...(
    [
      ['GET', ''],
      ['PATCH', '', { enabled: true }],
      ['DELETE', ''],
      ['POST', '/rotate-secret'],
      ['POST', '/test'],
      ['GET', '/deliveries'],
      ['POST', '/resend', { eventId: 'msg_000000000000000000000000' }],
      ['POST', '/replay', { from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' }],
    ] as const
  ).flatMap(([method, suffix, body]): Row[] => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const write = method !== 'GET';
    return [
      { method, url: `/v1/admin/webhooks/:endpointId${suffix}`, call: () => ({ path: `/v1/admin/webhooks/${unknown}${suffix}`, body }), expect: OPERATOR_WRITE_REFUSED(404) },
      {
        method, url: `/v1/tenant/webhooks/:endpointId${suffix}`,
        call: () => ({ path: `/v1/tenant/webhooks/${unknown}${suffix}`, body }),
        expect: { ...TENANT_READ, tenantUser: 404, otherTenant: 404, tenantKey: write ? 403 : 404 },
      },
    ];
  }),
  get('/v1/tenant/webhooks', TENANT_READ),
  { method: 'POST', url: '/v1/tenant/webhooks', call: () => ({ path: '/v1/tenant/webhooks', body: {} }), expect: { ...TENANT_READ, tenantUser: 400, otherTenant: 400, tenantKey: 403 } },
  // Writes are called so that the operator passes the guard without changing what other rows rely on.
  { method: 'POST', url: '/v1/admin/plans', call: () => ({ path: '/v1/admin/plans', body: { slug: 'BAD SLUG', name: 'x' } }), expect: OPERATOR_WRITE_REFUSED(400) },
  { method: 'PATCH', url: '/v1/admin/plans/:planId', call: (ids) => ({ path: `/v1/admin/plans/${ids.planId}`, body: { name: 'Matrix plan' } }), expect: OPERATOR_READ },
  { method: 'DELETE', url: '/v1/admin/plans/:planId', call: (ids) => ({ path: `/v1/admin/plans/${ids.planId}` }), expect: OPERATOR_WRITE_REFUSED(409) },
  { method: 'POST', url: '/v1/admin/plans/:planId/limits', call: (ids) => ({ path: `/v1/admin/plans/${ids.planId}/limits`, body: { name: 'x' } }), expect: OPERATOR_WRITE_REFUSED(400) },
  { method: 'DELETE', url: '/v1/admin/plans/:planId/limits/:limitId', call: (ids) => ({ path: `/v1/admin/plans/${ids.planId}/limits/00000000-0000-4000-8000-000000000000` }), expect: OPERATOR_WRITE_REFUSED(404) },
  {
    method: 'PATCH', url: '/v1/admin/plans/:planId/limits/:limitId',
    call: (ids) => ({ path: `/v1/admin/plans/${ids.planId}/limits/${ids.limitId}`, body: { limit: 10 } }),
    expect: OPERATOR_READ,
  },
  get('/v1/admin/tenants', OPERATOR_READ),
  { method: 'GET', url: '/v1/admin/tenants/limits-used', call: (ids) => ({ path: `/v1/admin/tenants/limits-used?id=${ids.tenantId}` }), expect: OPERATOR_READ },
  { method: 'GET', url: '/v1/admin/tenants/:tenantId', call: (ids) => ({ path: `/v1/admin/tenants/${ids.tenantId}` }), expect: OPERATOR_READ },
  { method: 'GET', url: '/v1/admin/tenants/:tenantId/limits', call: (ids) => ({ path: `/v1/admin/tenants/${ids.tenantId}/limits` }), expect: OPERATOR_READ },
  { method: 'GET', url: '/v1/admin/tenants/:tenantId/caps', call: (ids) => ({ path: `/v1/admin/tenants/${ids.tenantId}/caps` }), expect: OPERATOR_READ },
  { method: 'POST', url: '/v1/admin/tenants', call: () => ({ path: '/v1/admin/tenants', body: { slug: 'x' } }), expect: OPERATOR_WRITE_REFUSED(400) },
  { method: 'PATCH', url: '/v1/admin/tenants/:tenantId', call: (ids) => ({ path: `/v1/admin/tenants/${ids.tenantId}`, body: { name: 'Matrix tenant' } }), expect: OPERATOR_READ },
  { method: 'DELETE', url: '/v1/admin/tenants/:tenantId', call: () => ({ path: '/v1/admin/tenants/00000000-0000-4000-8000-000000000000' }), expect: OPERATOR_WRITE_REFUSED(404) },
  get('/v1/admin/audit', OPERATOR_READ),
  get('/v1/admin/alerts', OPERATOR_READ),
  get('/v1/admin/alert-rules', OPERATOR_READ),
  { method: 'GET', url: '/v1/admin/alert-rules/:ruleId', call: () => ({ path: '/v1/admin/alert-rules/00000000-0000-4000-8000-000000000000' }), expect: OPERATOR_WRITE_REFUSED(404) },
  { method: 'POST', url: '/v1/admin/alert-rules', call: () => ({ path: '/v1/admin/alert-rules', body: { kind: 'x' } }), expect: OPERATOR_WRITE_REFUSED(400) },
  { method: 'PATCH', url: '/v1/admin/alert-rules/:ruleId', call: () => ({ path: '/v1/admin/alert-rules/00000000-0000-4000-8000-000000000000', body: { enabled: true } }), expect: OPERATOR_WRITE_REFUSED(404) },
  { method: 'DELETE', url: '/v1/admin/alert-rules/:ruleId', call: () => ({ path: '/v1/admin/alert-rules/00000000-0000-4000-8000-000000000000' }), expect: OPERATOR_WRITE_REFUSED(404) },
  { method: 'PUT', url: '/v1/admin/alert-rules/:ruleId/silence', call: () => ({ path: '/v1/admin/alert-rules/00000000-0000-4000-8000-000000000000/silence', body: {} }), expect: OPERATOR_WRITE_REFUSED(400) },
  { method: 'DELETE', url: '/v1/admin/alert-rules/:ruleId/silence', call: () => ({ path: '/v1/admin/alert-rules/00000000-0000-4000-8000-000000000000/silence' }), expect: OPERATOR_WRITE_REFUSED(404) },
  get('/v1/admin/alerts/summary', OPERATOR_READ),
  { method: 'POST', url: '/v1/admin/alerts/:alertId/acknowledge', call: () => ({ path: '/v1/admin/alerts/9223372036854775806/acknowledge' }), expect: OPERATOR_WRITE_REFUSED(404) },
  get('/v1/admin/rule-sets', OPERATOR_READ),
  get('/v1/admin/rule-sets/current', OPERATOR_READ),
  { method: 'GET', url: '/v1/admin/rule-sets/diff', call: () => ({ path: '/v1/admin/rule-sets/diff?from=1&to=1' }), expect: OPERATOR_READ },
  { method: 'GET', url: '/v1/admin/rule-sets/:version', call: () => ({ path: '/v1/admin/rule-sets/1' }), expect: OPERATOR_READ },
  {
    method: 'GET', url: '/v1/admin/rule-sets/:version/restore-preview',
    call: () => ({ path: '/v1/admin/rule-sets/999999999/restore-preview' }),
    expect: { anonymous: 401, operator: 404, ...NOT_OPERATORS },
  },
  {
    // An unknown version: the operator passes the guard (404), without rolling back the shared test database.
    method: 'POST', url: '/v1/admin/rule-sets/:version/restore',
    call: () => ({ path: '/v1/admin/rule-sets/999999999/restore' }),
    expect: { anonymous: 401, operator: 404, ...NOT_OPERATORS },
  },
  { method: 'PUT', url: '/v1/admin/tenants/:tenantId/overrides/:name', call: (ids) => ({ path: `/v1/admin/tenants/${ids.tenantId}/overrides/minute`, body: { limit: 0 } }), expect: OPERATOR_WRITE_REFUSED(400) },
  { method: 'DELETE', url: '/v1/admin/tenants/:tenantId/overrides/:name', call: (ids) => ({ path: `/v1/admin/tenants/${ids.tenantId}/overrides/nothing` }), expect: OPERATOR_WRITE_REFUSED(404) },
  get('/v1/admin/policies', OPERATOR_READ),
  { method: 'GET', url: '/v1/admin/policies/:policyId', call: (ids) => ({ path: `/v1/admin/policies/${ids.policyId}` }), expect: OPERATOR_READ },
  { method: 'POST', url: '/v1/admin/policies', call: (ids) => ({ path: '/v1/admin/policies', body: { planId: ids.planId, name: 'x', method: 'GET', pattern: '/x?' } }), expect: OPERATOR_WRITE_REFUSED(400) },
  { method: 'PATCH', url: '/v1/admin/policies/:policyId', call: (ids) => ({ path: `/v1/admin/policies/${ids.policyId}`, body: { mode: 'shadow' } }), expect: OPERATOR_READ },
  { method: 'DELETE', url: '/v1/admin/policies/:policyId', call: () => ({ path: '/v1/admin/policies/00000000-0000-4000-8000-000000000000' }), expect: OPERATOR_WRITE_REFUSED(404) },
  { method: 'POST', url: '/v1/admin/policies/:policyId/limits', call: (ids) => ({ path: `/v1/admin/policies/${ids.policyId}/limits`, body: { name: 'x', windowS: 0, limit: 1 } }), expect: OPERATOR_WRITE_REFUSED(400) },
  {
    method: 'PATCH', url: '/v1/admin/policies/:policyId/limits/:limitId',
    call: (ids) => ({ path: `/v1/admin/policies/${ids.policyId}/limits/00000000-0000-4000-8000-000000000000`, body: { limit: 10 } }),
    expect: OPERATOR_WRITE_REFUSED(404),
  },
  {
    method: 'DELETE', url: '/v1/admin/policies/:policyId/limits/:limitId',
    call: (ids) => ({ path: `/v1/admin/policies/${ids.policyId}/limits/00000000-0000-4000-8000-000000000000` }),
    expect: OPERATOR_WRITE_REFUSED(404),
  },
  get('/v1/admin/keys', OPERATOR_READ),
  { method: 'GET', url: '/v1/admin/keys/:keyId', call: () => ({ path: '/v1/admin/keys/00000000-0000-4000-8000-000000000000' }), expect: OPERATOR_WRITE_REFUSED(404) },
  { method: 'POST', url: '/v1/admin/keys', call: () => ({ path: '/v1/admin/keys', body: { kind: 'root' } }), expect: OPERATOR_WRITE_REFUSED(400) },
  { method: 'POST', url: '/v1/admin/keys/:keyId/revoke', call: () => ({ path: '/v1/admin/keys/00000000-0000-4000-8000-000000000000/revoke' }), expect: OPERATOR_WRITE_REFUSED(404) },
  { method: 'POST', url: '/v1/admin/keys/:keyId/rotate', call: () => ({ path: '/v1/admin/keys/00000000-0000-4000-8000-000000000000/rotate', body: {} }), expect: OPERATOR_WRITE_REFUSED(404) },
  {
    method: 'POST', url: '/v1/check',
    call: (ids) => ({ path: '/v1/check', body: { tenant: ids.tenant, endpoint: 'GET /x' } }),
    expect: SERVICE_ONLY,
  },
  { method: 'POST', url: '/v1/check/peek', call: (ids) => ({ path: '/v1/check/peek', body: { tenant: ids.tenant, endpoint: 'GET /x' } }), expect: SERVICE_ONLY },
  { method: 'POST', url: '/v1/check/refund', call: (ids) => ({ path: '/v1/check/refund', body: { tenant: ids.tenant, endpoint: 'GET /x' } }), expect: SERVICE_ONLY },
  { method: 'POST', url: '/v1/check/lease', call: (ids) => ({ path: '/v1/check/lease', body: { tenant: ids.tenant, endpoint: 'GET /x', max: 1 } }), expect: SERVICE_ONLY },
  { method: 'POST', url: '/v1/check/batch', call: (ids) => ({ path: '/v1/check/batch', body: { checks: [{ tenant: ids.tenant, endpoint: 'GET /x' }] } }), expect: SERVICE_ONLY },
  // Forward-auth answers every method (the gateway asks with the original one). Its credential is the gateway's own
  // header, never Authorization (the client's): every caller below sends Authorization only, so all get 401.
  ...['DELETE', 'GET', 'PATCH', 'POST', 'PUT', 'OPTIONS', 'TRACE', 'QUERY', 'SEARCH', 'PROPFIND', 'PROPPATCH', 'MKCOL', 'COPY', 'MOVE', 'LOCK', 'UNLOCK'].flatMap(
    (method): Row[] => [
      // QUERY must carry a body (Fastify refuses it without a Content-Type).
      { method, url: '/v1/forward-auth', call: () => ({ path: '/v1/forward-auth', ...(method === 'QUERY' ? { body: {} } : {}) }), expect: GATEWAY_HEADER_ONLY },
      { method, url: '/v1/forward-auth/*', call: () => ({ path: '/v1/forward-auth/v1/items', ...(method === 'QUERY' ? { body: {} } : {}) }), expect: GATEWAY_HEADER_ONLY },
    ],
  ),
  // Last: it ends the sessions (a key has none: nothing to end).
  { method: 'POST', url: '/v1/auth/logout', call: () => ({ path: '/v1/auth/logout' }), expect: { anonymous: 401, operator: 204, tenantUser: 204, tenantKey: 204, otherTenant: 204, service: 403 } },
];

/** OpenAPI document and Swagger UI: public, documentation only. */
const isDocs = (url: string) => url === '/docs' || url.startsWith('/docs/') || url.startsWith('/docs-');

/** What a tenant owns that a route can name by id, and what of it must never show in another tenant's answers. */
interface Owned {
  params: Record<string, string>;
  /** Its tenant key, for checks that carry a key instead of a slug. */
  key: string;
  slug: string;
  /** Every id, slug, name, prefix and e-mail of its rows. */
  secrets: string[];
}

describe('route × caller matrix', () => {
  const ctx = useOperatorApi();
  let ids: Ids;
  let tokens: Record<Caller, string | undefined>;
  let ownIds: Owned;
  let otherIds: Owned;

  /** A tenant's own rows of every kind a path can name: its plan and a limit, its own policy and a limit, an override, a key, a user. */
  async function ownedBy(fixture: Awaited<ReturnType<typeof createTenant>>, label: string): Promise<Owned> {
    const policy = await ctx.prisma.endpointPolicy.create({
      data: { tenantId: fixture.tenant.id, name: `own${label.toLowerCase()}`, method: 'GET', pattern: `/own-${label}`, limits: { create: [{ name: 'minute', windowS: 60, limit: 10 }] } },
      include: { limits: true },
    });
    await ctx.prisma.tenantLimitOverride.create({ data: { tenantId: fixture.tenant.id, name: 'daily', windowS: 86_400, limit: 500 } });
    const key = await createTenantKey(ctx.prisma, fixture.tenant.id);
    const account = await createUser(ctx.prisma, 'tenant', fixture.tenant.id);
    const user = await ctx.prisma.user.findUniqueOrThrow({ where: { email: account.email } });
    const apiKey = await ctx.prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } });
    const webhook = await ctx.prisma.webhookEndpoint.create({
      data: { id: randomUUID(), tenantId: fixture.tenant.id, url: `http://127.0.0.1:9/${label}`, eventTypes: ['quota.threshold_crossed'], secret: 'v1:sealed-in-tests' },
    });
    const rule = await ctx.prisma.alertRule.create({ data: { name: `matrix ${fixture.tenant.slug}`, kind: 'quota_threshold', tenantId: fixture.tenant.id, params: {} } });
    const alert = await ctx.prisma.alert.create({ data: { ruleId: rule.id, kind: 'quota_threshold', tenantId: fixture.tenant.id, state: 'firing', limitName: 'daily', startedAt: new Date(), details: { thresholds: [80] } } });
    return {
      params: {
        planId: fixture.plan.id,
        tenantId: fixture.tenant.id,
        policyId: policy.id,
        planLimitId: fixture.plan.limits[0]!.id,
        policyLimitId: policy.limits[0]!.id,
        keyId: key.id,
        userId: user.id,
        name: 'daily',
        endpointId: webhook.id,
        ruleId: rule.id,
        alertId: String(alert.id),
      },
      key: key.key,
      slug: fixture.tenant.slug,
      secrets: [fixture.plan.id, fixture.plan.slug, fixture.tenant.id, fixture.tenant.slug, fixture.tenant.name, policy.id, policy.limits[0]!.id, key.id, apiKey.prefix, user.id, user.email, webhook.id, webhook.url!, rule.id, rule.name],
    };
  }

  beforeAll(async () => {
    const fixture = await createTenant(ctx.prisma);
    const policy = await ctx.prisma.endpointPolicy.create({
      data: { planId: fixture.plan.id, name: 'matrix', method: 'GET', pattern: '/matrix/*', limits: { create: [{ name: 'minute', windowS: 60, limit: 10 }] } },
    });
    ids = {
      tenantId: fixture.tenant.id,
      planId: fixture.plan.id,
      limitId: fixture.plan.limits.find((l) => l.name === 'minute')!.id,
      tenant: fixture.tenant.slug,
      policyId: policy.id,
    };
    const other = await createTenant(ctx.prisma);
    otherIds = await ownedBy(other, 'B');
    ownIds = await ownedBy(fixture, 'A');
    const service = await createServiceKey(ctx.prisma, [fixture.tenant.id]);
    const tenantKey = (await createTenantKey(ctx.prisma, fixture.tenant.id)).key;
    const { version } = await publishRules(ctx.prisma, TEST_REDIS_URL);
    await ctx.api.waitForRuleVersion(version);
    tokens = {
      anonymous: undefined,
      service,
      tenantUser: await ctx.signIn('tenant', fixture.tenant.id),
      tenantKey,
      otherTenant: await ctx.signIn('tenant', other.tenant.id),
      operator: ctx.session,
    };
  });

  it('has a row for every route the API serves', () => {
    const served = ctx.api.routes.filter((r) => r.method !== 'HEAD' && !isDocs(r.url)).map((r) => `${r.method} ${r.url}`);
    const known = MATRIX.map((r) => `${r.method} ${r.url}`);
    expect(served.filter((r) => !known.includes(r))).toEqual([]);
    expect(known.filter((r) => !served.includes(r))).toEqual([]);
  });

  it('finds every status of this table in the OpenAPI document, on its operation', async () => {
    const doc = (await ctx.api.request('GET', '/docs-json')).body as OpenApiPaths;
    const missing = MATRIX.flatMap((row) => {
      const operation = documented(doc, row.method, row.url);
      // /metrics is Prometheus's, not the API's: the document leaves it out.
      if (row.url === '/metrics') return [];
      if (!operation) return [`${row.method} ${row.url} (no operation)`];
      const statuses = new Set(Object.values(row.expect));
      return [...statuses].filter((status) => !answers(operation, status)).map((status) => `${row.method} ${row.url} ${status}`);
    });
    expect(missing).toEqual([]);
  });

  // Another tenant's ids: a tenant's caller that names them by id gets exactly the answer an unknown id gets (404 on
  // a tenant's own routes, 403 on an operator's), and no byte of that tenant's rows. Every route that takes an id is
  // covered (the routes Fastify registered); a route with a parameter this table does not know fails the test.
  describe("another tenant's ids", () => {
    const UNKNOWN: Record<string, string> = { name: 'no-such-override', version: '999999999', alertId: '9223372036854775806' };
    const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
    const withIds = (url: string, owned: Owned | null) =>
      url.replace(/:(\w+)/g, (_m, param: string) => {
        if (!owned) return UNKNOWN[param] ?? UNKNOWN_ID;
        // A limit belongs to a plan or to a policy: the one the route is about.
        const key = param === 'limitId' ? (url.includes('/policies/') ? 'policyLimitId' : 'planLimitId') : param;
        const value = owned.params[key];
        if (value === undefined) throw new Error(`no id of a tenant for :${param} in ${url}: add it to ownedBy`);
        return value;
      });
    // Versions are no tenant's: the rule set routes take nothing a tenant owns.
    const routesWithIds = () => ctx.api.routes.filter((r) => r.method !== 'HEAD' && /:(?!version\b)\w+/.test(r.url));

    const cases: [Caller, () => Owned][] = [
      ['tenantUser', () => otherIds],
      ['tenantKey', () => otherIds],
      ['otherTenant', () => ownIds],
    ];
    for (const [caller, owner] of cases) {
      it(`${caller}: every route that takes an id answers another tenant's ids as unknown ones`, async () => {
        const routes = routesWithIds();
        expect(routes.length).toBeGreaterThan(15);
        for (const route of routes) {
          const body = ['POST', 'PUT', 'PATCH'].includes(route.method) ? {} : undefined;
          const theirs = await ctx.api.request(route.method, withIds(route.url, owner()), { token: tokens[caller], body });
          const unknown = await ctx.api.request(route.method, withIds(route.url, null), { token: tokens[caller], body });
          const what = `${route.method} ${route.url}`;
          expect([403, 404], what).toContain(theirs.status);
          expect({ status: theirs.status, body: theirs.body }, what).toEqual({ status: unknown.status, body: unknown.body });
          for (const secret of owner().secrets) expect(JSON.stringify(theirs.body), what).not.toContain(secret);
        }
      });
    }

    it("tenant A's service key: tenant B's slug is an unknown one, tenant B's key is refused as not allowed without naming B", async () => {
      const check = (body: object) => ctx.api.request('POST', '/v1/check', { token: tokens.service, body: { endpoint: 'GET /x', ...body } });
      const [bySlug, byUnknownSlug] = [await check({ tenant: otherIds.slug }), await check({ tenant: 'no-such-tenant' })];
      expect(bySlug.status).toBe(404);
      expect(bySlug.body).toEqual(byUnknownSlug.body);
      const [byKey, byUnknownKey] = [await check({ key: otherIds.key }), await check({ key: 'tg_test_t_no_such_key' })];
      const { ruleVersion: _a, ...answer } = byKey.body;
      const { ruleVersion: _b, ...unknownAnswer } = byUnknownKey.body;
      // A valid key of a tenant this service may not check says so (tenant_not_allowed), and nothing more than an
      // unknown key's answer does: no tenant, no limits.
      expect(unknownAnswer).toMatchObject({ allowed: false, reason: 'key_invalid' });
      expect(answer).toEqual({ ...unknownAnswer, reason: 'tenant_not_allowed' });
      for (const secret of otherIds.secrets) expect(JSON.stringify([bySlug.body, byKey.body]), secret).not.toContain(secret);
    });

    it("a tenant's own API shows no byte of another tenant's rows", async () => {
      for (const [caller, owner] of cases) {
        for (const path of ['/v1/tenant', '/v1/tenant/limits', '/v1/tenant/keys', '/v1/tenant/alerts', '/v1/tenant/usage', '/v1/tenant/usage/denials', '/v1/tenant/usage.csv', '/v1/tenant/webhooks', '/v1/auth/me']) {
          const r = await ctx.api.request('GET', path, { token: tokens[caller] });
          for (const secret of owner().secrets) expect(JSON.stringify(r.body), `${caller} ${path}`).not.toContain(secret);
        }
      }
    });
  });

  for (const row of MATRIX) {
    for (const caller of CALLERS) {
      it(`${row.method} ${row.url} as ${caller} → ${row.expect[caller]}`, async () => {
        const { path, body } = row.call(ids);
        const r = await ctx.api.request(row.method, path, { token: tokens[caller], body });
        expect(r.status, JSON.stringify(r.body)).toBe(row.expect[caller]);
      });
    }
  }
});
