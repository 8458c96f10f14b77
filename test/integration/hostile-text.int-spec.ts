import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../support/context';
import { createTenant, createUser } from '../support/fixtures';

// Text that Postgres cannot store (NUL) or that repaints whatever shows it (ESC, BEL, C1 controls), invisible and
// bidirectional formatting characters (a name that reads as another, or carries text nobody sees), and half of a
// surrogate pair: refused with 400 `validation_failed` naming the field, before anything reaches the database.
const HOSTILE = {
  nul: 'a\u0000b',
  'bell and escape': 'bell\u0007\u001b[31mred',
  'a C1 control': 'next\u0085line',
  'a right-to-left override': 'invoice\u202Etxt.exe',
  'a bidi isolate': 'a\u2066b\u2069c',
  'a zero-width space': 'ac\u200Bme',
  'a byte order mark': 'ac\uFEFFme',
  'a lone surrogate': 'half \ud83d',
};

/** A query string or path carries UTF-8 bytes: a lone surrogate cannot be written there, only in a JSON body. */
const IN_URLS = Object.entries(HOSTILE).filter(([what]) => what !== 'a lone surrogate');

const cursorOf = (position: unknown) => Buffer.from(JSON.stringify(position)).toString('base64url');

describe('hostile text in names, filters and cursors', () => {
  const ctx = useOperatorApi();
  let planId: string;
  let tenantId: string;
  let userId: string;
  beforeAll(async () => {
    const fixture = await createTenant(ctx.prisma);
    planId = fixture.plan.id;
    tenantId = fixture.tenant.id;
    const user = await createUser(ctx.prisma, 'tenant', tenantId);
    userId = (await ctx.prisma.user.findUniqueOrThrow({ where: { email: user.email } })).id;
  });

  /** Every free-text field of every admin body, with the rest of a valid body around it. */
  const bodies = (): { route: string; method: string; path: string; body: (text: string) => unknown; field: string }[] => [
    { route: 'new plan', method: 'POST', path: '/v1/admin/plans', body: (name) => ({ slug: `p-${randomUUID().slice(0, 8)}`, name }), field: 'name' },
    { route: 'plan rename', method: 'PATCH', path: `/v1/admin/plans/${planId}`, body: (name) => ({ name }), field: 'name' },
    { route: 'new tenant', method: 'POST', path: '/v1/admin/tenants', body: (name) => ({ slug: `t-${randomUUID().slice(0, 8)}`, name, planId }), field: 'name' },
    { route: 'tenant rename', method: 'PATCH', path: `/v1/admin/tenants/${tenantId}`, body: (name) => ({ name }), field: 'name' },
    { route: 'new service key', method: 'POST', path: '/v1/admin/keys', body: (name) => ({ kind: 'service', name }), field: 'name' },
    { route: 'new tenant key', method: 'POST', path: '/v1/admin/keys', body: (name) => ({ kind: 'tenant', name, tenantId }), field: 'name' },
    { route: 'new operator key', method: 'POST', path: '/v1/admin/keys', body: (name) => ({ kind: 'operator', name }), field: 'name' },
    {
      route: 'new user', method: 'POST', path: '/v1/admin/users',
      body: (name) => ({ email: `u-${randomUUID().slice(0, 8)}@test.local`, name, role: 'operator', password: 'a long enough password' }),
      field: 'name',
    },
    { route: 'user rename', method: 'PATCH', path: `/v1/admin/users/${userId}`, body: (name) => ({ name }), field: 'name' },
    { route: 'new policy', method: 'POST', path: '/v1/admin/policies', body: (name) => ({ planId, name, method: 'GET', pattern: '/x' }), field: 'name' },
    { route: 'policy route', method: 'POST', path: '/v1/admin/policies', body: (pattern) => ({ planId, name: 'hostile', method: 'GET', pattern: `/x/${pattern}` }), field: 'pattern' },
    { route: 'plan limit', method: 'POST', path: `/v1/admin/plans/${planId}/limits`, body: (name) => ({ name, windowS: 60, limit: 1 }), field: 'name' },
    { route: 'new alert rule', method: 'POST', path: '/v1/admin/alert-rules', body: (name) => ({ name, kind: 'quota_threshold', tenantId }), field: 'name' },
    { route: 'new webhook endpoint', method: 'POST', path: '/v1/admin/webhooks', body: (description) => ({ url: 'https://hooks.example.com/x', description, eventTypes: ['quota.threshold_crossed'] }), field: 'description' },
    { route: 'webhook URL', method: 'POST', path: '/v1/admin/webhooks', body: (text) => ({ url: `https://hooks.example.com/${text}`, eventTypes: ['quota.threshold_crossed'] }), field: 'url' },
  ];

  for (const [what, text] of Object.entries(HOSTILE)) {
    it(`refuses ${what} in every name with 400 naming the field, and changes nothing`, async () => {
      const audited = () => ctx.prisma.auditLog.count({ where: { actor: `user:${ctx.operatorEmail}` } });
      const before = await audited();
      for (const row of bodies()) {
        const r = await ctx.api.request(row.method, row.path, { token: ctx.session, body: row.body(text) });
        expect(r.status, `${row.route}: ${JSON.stringify(r.body)}`).toBe(400);
        expect(r.body.error, row.route).toMatchObject({ code: 'validation_failed', field: row.field });
      }
      expect(await audited()).toBe(before);
    });
  }

  for (const [what, text] of IN_URLS) {
    it(`refuses ${what} in a path name with 400`, async () => {
      const r = await ctx.api.request('PUT', `/v1/admin/tenants/${tenantId}/overrides/${encodeURIComponent(text)}`, { token: ctx.session, body: { windowS: 60, limit: 1 } });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
    });

    it(`refuses ${what} in filters and cursors with 400 naming the field`, async () => {
      const queries: [string, string][] = [
        [`/v1/admin/plans?q=${encodeURIComponent(text)}`, 'q'],
        [`/v1/admin/plans?cursor=${encodeURIComponent(text)}`, 'cursor'],
        [`/v1/admin/tenants?cursor=${encodeURIComponent(text)}`, 'cursor'],
        [`/v1/admin/users?cursor=${encodeURIComponent(text)}`, 'cursor'],
        [`/v1/admin/keys?cursor=${encodeURIComponent(text)}`, 'cursor'],
        [`/v1/admin/policies?cursor=${encodeURIComponent(text)}`, 'cursor'],
        [`/v1/admin/policies?cursor=${cursorOf([`/a${text}`, 'GET', randomUUID()])}`, 'cursor'],
      ];
      for (const [path, field] of queries) {
        const r = await ctx.api.request('GET', path, { token: ctx.session });
        expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(400);
        expect(r.body.error, path).toMatchObject({ code: 'validation_failed', field });
      }
    });
  }

  it('never answers bytes that are not UTF-8 in a query or a path with a 5xx (taken literally, or a 4xx in the envelope)', async () => {
    for (const path of ['/v1/admin/plans?q=%ff', '/v1/admin/plans?q=%ed%a0%bd', '/v1/admin/users?cursor=%c0%80', `/v1/admin/tenants/${tenantId}/overrides/%ff`]) {
      const r = await ctx.api.request(path.includes('overrides') ? 'DELETE' : 'GET', path, { token: ctx.session });
      expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBeLessThan(500);
      if (r.status >= 400) expect(typeof r.body.error.code, path).toBe('string');
    }
  });

  it('answers a path that is not UTF-8 with 400 and an over-long path parameter with 404, in the error envelope, on both Fastify instances', async () => {
    for (const path of [`/v1/admin/plans/%ff`, `/v1/forward-auth/%ff`]) {
      const r = await ctx.api.request('GET', path, { token: ctx.session });
      expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(400);
      expect(r.body).toEqual({ error: { code: 'validation_failed', message: expect.any(String) } });
    }
    for (const path of [`/v1/admin/plans/${'a'.repeat(500)}`, `/v1/admin/tenants/${tenantId}/overrides/${'a'.repeat(500)}`, `/v1/forward-auth/${'a'.repeat(500)}`]) {
      const r = await ctx.api.request(path.includes('/overrides/') ? 'DELETE' : 'GET', path, { token: ctx.session });
      if (path.startsWith('/v1/forward-auth')) expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);
      else expect(r.body, path).toEqual({ error: { code: 'not_found', message: 'not found' } });
      if (r.status >= 400) expect(typeof r.body.error.code).toBe('string');
    }
  });

  it('answers a request line or headers over the server limit with 431 headers_too_large in the error envelope', async () => {
    for (const [path, headers] of [
      [`/v1/admin/plans?q=${'x'.repeat(20_000)}`, {}],
      [`/v1/check?q=${'x'.repeat(20_000)}`, {}],
      ['/v1/admin/plans', { 'x-padding': 'y'.repeat(20_000) }],
    ] as const) {
      const r = await ctx.api.request('GET', path, { token: ctx.session, headers });
      expect(r.status).toBe(431);
      expect(r.body).toEqual({ error: { code: 'headers_too_large', message: 'the request line and headers are too large' } });
    }
  });

  it('refuses a policy cursor that holds anything but a pattern, a method and a policy id', async () => {
    for (const position of [['/a', 'GET', 'not-a-uuid'], ['/a', 'BREW', randomUUID()], ['no slash', 'GET', randomUUID()], ['/a', 'GET'], { pattern: '/a' }]) {
      const r = await ctx.api.request('GET', `/v1/admin/policies?cursor=${cursorOf(position)}`, { token: ctx.session });
      expect(r.status, JSON.stringify(position)).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_failed', field: 'cursor' });
    }
  });

  it('keeps plain unicode names as they are (accents, scripts, emoji, inner spaces)', async () => {
    const name = 'Ünïcødé 名前 🚀 two  spaces';
    const r = await ctx.api.request('PATCH', `/v1/admin/tenants/${tenantId}`, { token: ctx.session, body: { name: `  ${name}  ` } });
    expect(r.status).toBe(200);
    expect(r.body.tenant.name).toBe(name);
  });
});
