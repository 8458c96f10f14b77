import 'reflect-metadata';
import { Controller, Get, Module, Param, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { TollgateClient } from '@tollgate/sdk';
import { RateLimit, TollgateModule, type TollgateModuleOptions } from '@tollgate/sdk/nest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEnforcementServer, type EnforcementServer } from '../support/enforcement-server';
import { awayFromMinuteBoundary } from '../support/fixtures';
import { header, useSdkApi } from '../support/sdk-api';

@Controller('items')
class ItemsController {
  @Get()
  list() {
    return [];
  }

  @Get(':id')
  @RateLimit()
  get(@Param('id') id: string) {
    return { id };
  }

  @Post()
  @RateLimit({ cost: 2, endpoint: 'POST /v1/items' })
  create() {
    return { created: true };
  }
}

@Controller('reports')
@RateLimit({ cost: 1 })
class ReportsController {
  @Get('daily')
  daily() {
    return { report: 'daily' };
  }
}

/** A small service of our own: Nest on Fastify, with the guard in front of its routes. */
async function startService(options: TollgateModuleOptions): Promise<{ app: NestFastifyApplication; url: string }> {
  @Module({ imports: [TollgateModule.forRoot(options)], controllers: [ItemsController, ReportsController] })
  class ServiceModule {}
  const app = await NestFactory.create<NestFastifyApplication>(ServiceModule, new FastifyAdapter(), { logger: false });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address();
  return { app, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
}

describe('NestJS guard (@RateLimit) in a Nest app on Fastify, against a real API', () => {
  const sdk = useSdkApi();
  const { checks } = sdk;
  let service: { app: NestFastifyApplication; url: string };

  beforeAll(async () => {
    service = await startService({ client: sdk.client, tenant: header('x-tenant'), subject: header('x-user') });
    await awayFromMinuteBoundary();
  });
  afterAll(async () => {
    await service?.app.close();
  });

  it('checks with the route pattern and cost, copies the headers, answers 429 with Retry-After when denied', async () => {
    const get = () => fetch(`${service.url}/items/42`, { headers: { 'x-tenant': sdk.tenant, 'x-user': 'alice' } });
    const first = await get();
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ id: '42' });
    expect(first.headers.get('x-ratelimit-limit')).toBe('3');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(first.headers.get('ratelimit-policy')).toBe('"minute";q=3;w=60');
    expect(checks.at(-1)).toEqual({ tenant: sdk.tenant, endpoint: 'GET /items/:id', subject: 'alice' });

    const post = await fetch(`${service.url}/items`, { method: 'POST', headers: { 'x-tenant': sdk.tenant, 'x-user': 'alice' } });
    expect(post.status).toBe(201);
    expect(post.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(checks.at(-1)).toEqual({ tenant: sdk.tenant, endpoint: 'POST /v1/items', subject: 'alice', cost: 2 });

    const denied = await get();
    expect(denied.status).toBe(429);
    expect(Number(denied.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(denied.headers.get('ratelimit')).toMatch(/^"minute";r=0;t=\d+$/);
    expect(await denied.json()).toMatchObject({ error: { code: 'rate_limited' } });

    // The plan's quota is the tenant's: another subject shares it (per-user limits come from endpoint policies).
    expect((await fetch(`${service.url}/items/42`, { headers: { 'x-tenant': sdk.tenant, 'x-user': 'bob' } })).status).toBe(429);
  });

  it('applies a controller-level @RateLimit, leaves undecorated routes alone, and refuses a request without a tenant', async () => {
    const report = await fetch(`${service.url}/reports/daily`, { headers: { 'x-tenant': sdk.other, 'x-user': 'carol' } });
    expect(report.status).toBe(200);
    expect(checks.at(-1)).toEqual({ tenant: sdk.other, endpoint: 'GET /reports/daily', subject: 'carol', cost: 1 });

    const count = checks.length;
    const list = await fetch(`${service.url}/items`, { headers: { 'x-tenant': sdk.tenant } });
    expect(list.status).toBe(200);
    expect(list.headers.get('x-ratelimit-limit')).toBeNull();
    expect(checks).toHaveLength(count);

    const anonymous = await fetch(`${service.url}/items/1`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { code: 'unauthenticated' } });
  });

  it('Tollgate unreachable: 503 with Retry-After when failing closed; a pass without limit headers when failing open', async () => {
    const down = (onError: 'open' | 'closed') => new TollgateClient({ baseUrl: 'http://127.0.0.1:9', serviceKey: 'x', timeoutMs: 200, onError });
    const closed = await startService({ client: down('closed'), tenant: header('x-tenant') });
    const open = await startService({ client: down('open'), tenant: header('x-tenant') });
    try {
      const refused = await fetch(`${closed.url}/items/1`, { headers: { 'x-tenant': sdk.tenant } });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      const passed = await fetch(`${open.url}/items/1`, { headers: { 'x-tenant': sdk.tenant } });
      expect(passed.status).toBe(200);
      expect(passed.headers.get('x-ratelimit-remaining')).toBeNull();
    } finally {
      await closed.app.close();
      await open.app.close();
    }
  });
});

describe('NestJS guard with the tenant key from a header (enforcement contract server)', () => {
  let server: EnforcementServer;
  let service: { app: NestFastifyApplication; url: string };

  beforeAll(async () => {
    server = await startEnforcementServer({ tenants: { acme: [{ name: 'minute', algorithm: 'fixed_window', limit: 1, windowMs: 60_000 }] }, keys: { tg_test_t_acme: 'acme' } });
    service = await startService({ client: new TollgateClient({ baseUrl: server.url, serviceKey: server.serviceKey }), keyHeader: 'X-Api-Key' });
  });
  afterAll(async () => {
    await service?.app.close();
    await server?.close();
  });

  it('sends the key for Tollgate to verify: a known key is limited, an unknown one is 401', async () => {
    const get = (key: string) => fetch(`${service.url}/items/7`, { headers: { 'x-api-key': key } });
    expect((await get('tg_test_t_acme')).status).toBe(200);
    expect(server.requests.at(-1)?.body).toEqual({ key: 'tg_test_t_acme', endpoint: 'GET /items/:id' });
    expect((await get('tg_test_t_acme')).status).toBe(429);
    const unknown = await get('tg_test_t_nobody');
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toMatchObject({ error: { code: 'unauthenticated', message: expect.stringContaining('key_invalid') } });
  });
});
