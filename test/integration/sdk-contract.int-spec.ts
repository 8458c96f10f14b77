import { TollgateClient, TollgateError } from '@tollgate/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEnforcementServer, type EnforcementServer } from '../support/enforcement-server';

// The routes of the enforcement contract the API does not serve yet (peek, refund, lease, batch) and the
// 5xx cases, against a real HTTP server answering the contract (test/support/enforcement-server.ts).
describe('TollgateClient against the enforcement contract', () => {
  let server: EnforcementServer;
  let client: TollgateClient;
  const minute = { name: 'minute', algorithm: 'fixed_window' as const, limit: 10, windowMs: 60_000 };

  beforeAll(async () => {
    server = await startEnforcementServer({ tenants: { acme: [minute], beta: [minute] }, keys: { tg_test_t_acme: 'acme' } });
    client = new TollgateClient({ baseUrl: server.url, serviceKey: server.serviceKey });
  });
  afterEach(() => server.fault(null));
  afterAll(() => server.close());

  it('peeks without charging, refunds, and checks by tenant key', async () => {
    const subject = 'peek';
    expect(await client.peek({ tenant: 'acme', endpoint: 'GET /p', subject, cost: 10 })).toMatchObject({ allowed: true, limits: [{ remaining: 0 }] });
    expect((await client.check({ tenant: 'acme', endpoint: 'GET /p', subject, cost: 10 })).allowed).toBe(true);
    const denied = await client.check({ key: 'tg_test_t_acme', endpoint: 'GET /p', subject });
    expect(denied).toMatchObject({ allowed: false, tenant: 'acme' });
    expect(Number(denied.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    expect(await client.refund({ tenant: 'acme', endpoint: 'GET /p', subject, cost: 4 })).toMatchObject({ allowed: true, limits: [{ remaining: 4 }] });
    expect((await client.check({ tenant: 'acme', endpoint: 'GET /p', subject, cost: 4 })).allowed).toBe(true);
    expect(await client.check({ key: 'tg_test_t_nobody', endpoint: 'GET /p' })).toMatchObject({ allowed: false, reason: 'key_unknown' });
  });

  it('leases up to max, and 0 when nothing is left', async () => {
    const lease = await client.lease({ tenant: 'acme', endpoint: 'GET /l', max: 7 });
    expect(lease).toMatchObject({ allowed: true, granted: 7 });
    expect(await client.lease({ tenant: 'acme', endpoint: 'GET /l', max: 7 })).toMatchObject({ allowed: true, granted: 3 });
    const none = await client.lease({ tenant: 'acme', endpoint: 'GET /l', max: 7 });
    expect(none).toMatchObject({ allowed: false, granted: 0 });
    expect(none.retryAfterMs).toBeGreaterThan(0);
  });

  it('batches checks; a bad check fails alone; too many are refused before sending', async () => {
    const { results } = await client.batch([
      { tenant: 'acme', endpoint: 'GET /b', cost: 2 },
      { tenant: 'acme', endpoint: 'GET /b', cost: 11 },
      { tenant: 'nobody', endpoint: 'GET /b' },
      { tenant: 'beta', endpoint: 'GET /b', cost: 0 },
    ]);
    expect(results[0]).toMatchObject({ allowed: true, limits: [{ remaining: 8 }] });
    expect(results[1]).toMatchObject({ error: { code: 'cost_exceeds_capacity' } });
    expect(results[2]).toMatchObject({ error: { code: 'not_found' } });
    expect(results[3]).toMatchObject({ error: { code: 'validation_failed', field: 'cost' } });
    const before = server.calls['/v1/check/batch'];
    const many = Array.from({ length: 101 }, () => ({ tenant: 'acme', endpoint: 'GET /b' }));
    await expect(client.batch(many)).rejects.toMatchObject({ code: 'validation_failed', field: 'checks' });
    expect(server.calls['/v1/check/batch']).toBe(before);
  });

  it('a 503 fails closed by default, with its code and Retry-After; fails open when asked', async () => {
    server.fault({ status: 503, retryAfterS: 2 });
    const err = await client.check({ tenant: 'acme', endpoint: 'GET /f' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TollgateError);
    expect(err).toMatchObject({ code: 'redis_unavailable', status: 503, retryAfterMs: 2_000, unavailable: true });
    const open = await client.check({ tenant: 'acme', endpoint: 'GET /f' }, { onError: 'open' });
    expect(open).toMatchObject({ allowed: true, degraded: true, limits: [], headers: {} });
    expect(await client.lease({ tenant: 'acme', endpoint: 'GET /f', max: 5 }, { onError: 'open' })).toMatchObject({ allowed: true, degraded: true, granted: 5 });
    expect((await client.batch([{ tenant: 'acme', endpoint: 'GET /f' }], { onError: 'open' })).results).toEqual([expect.objectContaining({ degraded: true })]);
  });

  it('does not retry a check unless told to; retries with backoff when told', async () => {
    server.fault({ status: 500, count: 1 });
    const before = server.calls['/v1/check'] ?? 0;
    await expect(client.check({ tenant: 'beta', endpoint: 'GET /r' })).rejects.toMatchObject({ unavailable: true, status: 500 });
    expect(server.calls['/v1/check']).toBe(before + 1);

    server.fault({ status: 502, count: 2 });
    const retrying = new TollgateClient({ baseUrl: server.url, serviceKey: server.serviceKey, retries: 2, random: () => 0 });
    expect((await retrying.check({ tenant: 'beta', endpoint: 'GET /r' })).allowed).toBe(true);
    expect(server.calls['/v1/check']).toBe(before + 4);
  });

  it('gives up at the deadline of a hanging call; a cancelled call rejects with its reason and never fails open', async () => {
    server.fault({ hang: true });
    const hurried = new TollgateClient({ baseUrl: server.url, serviceKey: server.serviceKey, timeoutMs: 100 });
    await expect(hurried.check({ tenant: 'acme', endpoint: 'GET /h' })).rejects.toMatchObject({ code: 'internal', unavailable: true, message: expect.stringContaining('100 ms') });
    const controller = new AbortController();
    const call = client.check({ tenant: 'acme', endpoint: 'GET /h' }, { signal: controller.signal, onError: 'open' });
    controller.abort(new Error('client went away'));
    await expect(call).rejects.toThrow('client went away');
  });
});
