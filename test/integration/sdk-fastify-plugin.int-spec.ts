import { TollgateClient } from '@tollgate/sdk';
import { tollgatePlugin } from '@tollgate/sdk/fastify';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEnforcementServer, type EnforcementServer } from '../support/enforcement-server';
import { awayFromMinuteBoundary } from '../support/fixtures';
import { header, useSdkApi } from '../support/sdk-api';

describe('Fastify plugin against a real API', () => {
  const sdk = useSdkApi();
  const { checks } = sdk;
  let app: FastifyInstance;

  beforeAll(async () => {
    app = Fastify();
    await app.register(tollgatePlugin, { client: sdk.client, tenant: header('x-tenant'), subject: header('x-user') });
    // Registered in a child context: the hook still applies (the plugin is not encapsulated).
    await app.register(async (child) => {
      child.get('/items/:id', { config: { tollgate: {} } }, async (req) => ({ id: (req.params as { id: string }).id }));
      child.post('/items', { config: { tollgate: { cost: 2, endpoint: 'POST /v1/items', subject: () => 'shared' } } }, async () => ({ created: true }));
      child.get('/billing', { config: { tollgate: { tenant: () => sdk.other } } }, async () => ({ billing: true }));
      child.get('/free', async () => ({ free: true }));
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    await awayFromMinuteBoundary();
  });
  afterAll(async () => {
    await app?.close();
  });

  const url = (path: string) => {
    const address = app.server.address();
    return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}${path}`;
  };

  it('checks routes with config.tollgate: route pattern, cost, per-route subject; 429 with the headers when denied', async () => {
    const headers = { 'x-tenant': sdk.tenant, 'x-user': 'alice' };
    const first = await fetch(url('/items/9'), { headers });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(checks.at(-1)).toEqual({ tenant: sdk.tenant, endpoint: 'GET /items/:id', subject: 'alice' });

    const post = await fetch(url('/items'), { method: 'POST', headers });
    expect(post.status).toBe(200);
    // The plan's quota is the tenant's, whoever the subject: 3 = 1 + 2.
    expect(post.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(checks.at(-1)).toEqual({ tenant: sdk.tenant, endpoint: 'POST /v1/items', subject: 'shared', cost: 2 });
    const denied = await fetch(url('/items'), { method: 'POST', headers });
    expect(denied.status).toBe(429);
    expect(Number(denied.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(denied.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(await denied.json()).toMatchObject({ error: { code: 'rate_limited' } });
  });

  it('resolves the tenant per route, skips routes without config, and refuses a request without a tenant', async () => {
    const billing = await fetch(url('/billing'));
    expect(billing.status).toBe(200);
    expect(checks.at(-1)).toEqual({ tenant: sdk.other, endpoint: 'GET /billing' });
    const count = checks.length;
    const free = await fetch(url('/free'));
    expect(free.status).toBe(200);
    expect(free.headers.get('ratelimit')).toBeNull();
    expect(checks).toHaveLength(count);
    const anonymous = await fetch(url('/items/1'));
    expect(anonymous.status).toBe(401);
  });
});

describe('Fastify plugin: every route, tenant key header, Tollgate failing (enforcement contract server)', () => {
  let server: EnforcementServer;

  beforeAll(async () => {
    server = await startEnforcementServer({ tenants: { acme: [{ name: 'minute', algorithm: 'fixed_window', limit: 5, windowMs: 60_000 }] }, keys: { tg_test_t_acme: 'acme' } });
  });
  afterAll(() => server?.close());

  async function service(onError: 'open' | 'closed') {
    const app = Fastify();
    await app.register(tollgatePlugin, { client: new TollgateClient({ baseUrl: server.url, serviceKey: server.serviceKey, onError }), keyHeader: 'x-api-key', all: true });
    app.get('/a', async () => ({ a: true }));
    app.get('/health', { config: { tollgate: false } }, async () => ({ ok: true }));
    return app;
  }

  it('with all: true checks every route but those opting out; the key goes to Tollgate', async () => {
    const app = await service('closed');
    const res = await app.inject({ method: 'GET', url: '/a', headers: { 'x-api-key': 'tg_test_t_acme' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('5');
    expect(server.requests.at(-1)?.body).toEqual({ key: 'tg_test_t_acme', endpoint: 'GET /a' });
    const calls = server.calls['/v1/check'];
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    expect(server.calls['/v1/check']).toBe(calls);
    await app.close();
  });

  it('a 503 from Tollgate: 503 with its Retry-After when closed, a pass when open', async () => {
    server.fault({ status: 503, retryAfterS: 3 });
    const closed = await service('closed');
    const open = await service('open');
    try {
      const refused = await closed.inject({ method: 'GET', url: '/a', headers: { 'x-api-key': 'tg_test_t_acme' } });
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toBe('3');
      expect(refused.json()).toMatchObject({ error: { code: 'redis_unavailable' } });
      const passed = await open.inject({ method: 'GET', url: '/a', headers: { 'x-api-key': 'tg_test_t_acme' } });
      expect(passed.statusCode).toBe(200);
      expect(passed.headers['x-ratelimit-limit']).toBeUndefined();
    } finally {
      server.fault(null);
      await closed.close();
      await open.close();
    }
  });
});
