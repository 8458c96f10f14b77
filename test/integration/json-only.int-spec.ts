import { beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../support/context';
import { createTenant } from '../support/fixtures';

const NOT_JSON: [contentType: string, body: string][] = [
  ['application/x-www-form-urlencoded', 'slug=form-body&name=Form&kind=service'],
  ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nForm\r\n--x--\r\n'],
  ['text/plain', '{"name":"Form"}'],
  ['application/xml', '<plan><name>Form</name></plan>'],
  ['application/vnd.api+json', '{"name":"Form"}'],
];

describe('JSON routes take JSON only', () => {
  const ctx = useOperatorApi();
  let planId: string;
  let tenantId: string;
  beforeAll(async () => {
    ({ plan: { id: planId }, tenant: { id: tenantId } } = await createTenant(ctx.prisma));
  });

  /** Every route that takes a body, with ids of a real plan and tenant so that a parsed body could be acted on. */
  const writeRoutes = () =>
    ctx.api.routes
      .filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method) && !r.url.startsWith('/v1/forward-auth'))
      .map((r) => ({ method: r.method, path: r.url.replace(':planId', planId).replace(':tenantId', tenantId).replace(/:[A-Za-z]+/g, 'minute') }));

  it('answers any other content type with 415 unsupported_media_type on every route, and changes nothing', async () => {
    const audited = () => ctx.prisma.auditLog.count({ where: { actor: `user:${ctx.operatorEmail}` } });
    const before = await audited();
    const routes = writeRoutes();
    expect(routes.length).toBeGreaterThan(10);
    for (const { method, path } of routes) {
      for (const [contentType, body] of NOT_JSON) {
        const r = await ctx.api.request(method, path, { token: ctx.session, body, headers: { 'content-type': contentType } });
        expect(r.status, `${method} ${path} with ${contentType}: ${JSON.stringify(r.body)}`).toBe(415);
        expect(r.body.error.code).toBe('unsupported_media_type');
      }
    }
    expect(await audited()).toBe(before);
  });

  it('still takes JSON with a charset', async () => {
    const r = await ctx.api.request('PATCH', `/v1/admin/plans/${planId}`, { token: ctx.session, body: '{"name":"JSON only"}', headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(r.status).toBe(200);
  });

  it('refuses JSON that would set a prototype with 400 validation_failed on both Fastify instances', async () => {
    for (const path of [`/v1/admin/plans/${planId}`, '/v1/check']) {
      for (const body of ['{"__proto__":{"name":"x"}}', '{"constructor":{"prototype":{"name":"x"}}}']) {
        const r = await ctx.api.request(path === '/v1/check' ? 'POST' : 'PATCH', path, { token: ctx.session, body });
        expect(r.status, `${path} ${body}`).toBe(400);
        expect(r.body.error.code).toBe('validation_failed');
      }
    }
  });
});
