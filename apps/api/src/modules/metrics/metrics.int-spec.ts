import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type TestApi } from '../../../../../test/support/api';
import { TEST_DATABASE_URL, TEST_METRICS_TOKEN, TEST_REDIS_URL } from '../../../../../test/support/env';
import { createServiceKey, createTenant, publishRules, waitFor } from '../../../../../test/support/fixtures';
import { freePort } from '../../../../../test/support/stack';
import { MetricsListener } from './metrics-listener';

/** `/metrics` names every tenant and its traffic: who may read it, where, and with or without tenant names. */
describe('GET /metrics', () => {
  let prisma: PrismaClient;
  let serviceKey: string;
  let tenant: string;
  const nodes: TestApi[] = [];
  const start = async (env: Record<string, string>) => {
    const node = await startApi(env);
    nodes.push(node);
    return node;
  };

  beforeAll(async () => {
    prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    tenant = (await createTenant(prisma)).tenant.slug;
    serviceKey = await createServiceKey(prisma);
    await publishRules(prisma, TEST_REDIS_URL);
  });
  afterAll(async () => {
    for (const node of nodes) await node.close();
    await prisma.$disconnect();
  });

  /** One decision for the fixture's tenant on `node`, once it has the rule set with that tenant. */
  async function decideOn(node: TestApi): Promise<void> {
    await waitFor(async () => (await node.request('POST', '/v1/check', { token: serviceKey, body: { tenant, endpoint: 'GET /x' } })).status === 200);
  }

  it('on the API port with METRICS_TOKEN set: 401 in the error envelope without the token or with another credential, 200 with it', async () => {
    const api = await start({});
    for (const token of [undefined, 'wrong-token-of-enough-length', serviceKey, `${TEST_METRICS_TOKEN}x`]) {
      const r = await api.request('GET', '/metrics', { token });
      expect(r.status, String(token)).toBe(401);
      expect(r.headers.get('content-type')).toContain('application/json');
      expect(r.body).toEqual({ error: { code: 'unauthenticated', message: expect.any(String) } });
    }
    const ok = await api.request('GET', '/metrics', { token: TEST_METRICS_TOKEN });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toContain('text/plain');
    expect(ok.body).toMatch(/^tollgate_rule_set_version \d+$/m);
  });

  it('is not served at all without METRICS_TOKEN or METRICS_PORT (404)', async () => {
    const api = await start({ METRICS_TOKEN: '' });
    const r = await api.request('GET', '/metrics');
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({ code: 'not_found', message: expect.stringContaining('METRICS_TOKEN') });
  });

  it('with METRICS_PORT: served on that listener only (open there without a token), 404 on the API port', async () => {
    const port = await freePort();
    const api = await start({ METRICS_TOKEN: '', METRICS_PORT: String(port) });
    expect(api.app.get(MetricsListener).address()).toEqual({ host: '127.0.0.1', port });
    expect((await api.request('GET', '/metrics')).status).toBe(404);
    const scraped = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toContain('text/plain');
    expect(await scraped.text()).toMatch(/^tollgate_rule_set_version \d+$/m);
    // It serves nothing else: not the API, not its docs.
    const other = await fetch(`http://127.0.0.1:${port}/health`);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ error: { code: 'not_found' } });
  });

  it('with METRICS_PORT and METRICS_TOKEN: the listener asks for the token too', async () => {
    const port = await freePort();
    await start({ METRICS_PORT: String(port) });
    const without = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(without.status).toBe(401);
    expect(await without.json()).toEqual({ error: { code: 'unauthenticated', message: expect.any(String) } });
    expect((await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${TEST_METRICS_TOKEN}` } })).status).toBe(200);
  });

  it('names no tenant with METRICS_TENANT_LABEL=false (its decisions count under tenant="-"); names it by default', async () => {
    const unnamed = await start({ METRICS_TENANT_LABEL: 'false' });
    const named = await start({});
    await decideOn(unnamed);
    await decideOn(named);
    const scrape = async (node: TestApi) => String((await node.request('GET', '/metrics', { token: TEST_METRICS_TOKEN })).body);
    const withoutNames = await scrape(unnamed);
    expect(withoutNames).not.toContain(tenant);
    expect(withoutNames).toMatch(/^tollgate_decisions_total\{tenant="-",endpoint="-",result="allowed",mode="enforce"\} \d+$/m);
    expect(await scrape(named)).toContain(`tollgate_decisions_total{tenant="${tenant}",endpoint="-",result="allowed",mode="enforce"}`);
  });
});
