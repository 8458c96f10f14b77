import { TollgateClient, TollgateError } from '@tollgate/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEnforcementServer, type EnforcementServer } from '../support/enforcement-server';

// The failure cases of the enforcement contract (5xx with Retry-After, a hanging call), which the real API cannot
// be made to produce on demand, against a real HTTP server answering the contract with faults switched on
// (test/support/enforcement-server.ts). The routes themselves are tested against the real API in sdk-client.int-spec.ts.
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
