import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type TestApi } from '../../../../../test/support/api';
import { TEST_METRICS_TOKEN } from '../../../../../test/support/env';

describe('GET /health, GET /health/ready and GET /metrics', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  it('is 200 with Postgres, Redis and a rule set', async () => {
    const r = await api.request('GET', '/health');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'ok', checks: { postgres: 'up', redis: 'up', ruleSet: 'loaded' } });
  });

  it('is ready (/health/ready 200) with the rule set version it enforces', async () => {
    const r = await api.request('GET', '/health/ready');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ready', ruleVersion: (await api.request('GET', '/health')).body.ruleVersion });
    expect(r.body.ruleVersion).toEqual(expect.any(Number));
  });

  it('exposes Prometheus metrics including the rule set version in force', async () => {
    const r = await api.request('GET', '/metrics', { token: TEST_METRICS_TOKEN });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/plain');
    expect(r.body).toMatch(/^tollgate_rule_set_version \d+$/m);
    expect(r.body).toContain('tollgate_decisions_total');
  });

  it('serves the OpenAPI document with the check route', async () => {
    const r = await api.request('GET', '/docs-json');
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.paths)).toEqual(expect.arrayContaining(['/v1/check', '/v1/admin/plans', '/health', '/health/ready']));
  });
});

describe('GET /health when the dependencies are down', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/nothing', REDIS_URL: 'redis://127.0.0.1:1' });
  });
  afterAll(() => api.close());

  it('starts anyway and answers 503 naming what is down', async () => {
    const r = await api.request('GET', '/health');
    expect(r.status).toBe(503);
    expect(r.body.checks).toEqual({ postgres: 'down', redis: 'down', ruleSet: 'missing' });
  });

  it('is not ready (/health/ready 503) before any rule set arrived', async () => {
    const r = await api.request('GET', '/health/ready');
    expect(r.status).toBe(503);
    expect(r.body).toEqual({ status: 'not-ready', ruleVersion: null });
  });

  it('refuses checks with 401, not a 500: without a rule set no key can be verified', async () => {
    const r = await api.request('POST', '/v1/check', { token: 'tg_test_x', body: { tenant: 'acme', endpoint: 'GET /x' } });
    expect(r.status).toBe(401);
  });
});
