import { describe, expect, it } from 'vitest';
import { loadApiConfig } from '../../../config/config';
import { DEFAULT_ENTRY_KEYS, mapRateLimitRequest, NO_ENDPOINT, parseEntryKeys, type RlsMapping, RlsInvalid } from './rls-mapping';

const mapping: RlsMapping = { entryKeys: parseEntryKeys(DEFAULT_ENTRY_KEYS), domainIsTenant: false, unknownEntries: 'ignore' };
const entries = (...pairs: [string, string][]) => ({ entries: pairs.map(([key, value]) => ({ key, value })) });

describe('mapRateLimitRequest', () => {
  it('reads every descriptor into one check: tenant, endpoint, subject, address; unknown entries are skipped', () => {
    const check = mapRateLimitRequest(
      { domain: 'edge', descriptors: [entries(['tenant', 'acme'], ['header_match', 'x']), entries(['method', 'post'], ['path', '/v1/messages']), entries(['generic_key', 'alice'], ['remote_address', '10.0.0.1'])] },
      mapping,
    );
    expect(check).toEqual({ target: { tenant: 'acme', endpoint: 'POST /v1/messages', subject: 'alice', ip: '10.0.0.1' }, cost: 1, operation: 'consume', descriptorCount: 3 });
  });

  it('takes the cost from the descriptors, else the request, else 1; a descriptor hits_addend of 0 is a peek', () => {
    const base = { domain: 'd', descriptors: [entries(['tenant', 'acme'])] };
    expect(mapRateLimitRequest(base, mapping)).toMatchObject({ cost: 1, operation: 'consume' });
    expect(mapRateLimitRequest({ ...base, hits_addend: 4 }, mapping)).toMatchObject({ cost: 4 });
    expect(mapRateLimitRequest({ ...base, hits_addend: 4, descriptors: [{ ...entries(['tenant', 'acme']), hits_addend: { value: '7' } }] }, mapping)).toMatchObject({ cost: 7 });
    // Envoy sends a wrapper of 0 as an empty message.
    expect(mapRateLimitRequest({ ...base, descriptors: [{ ...entries(['tenant', 'acme']), hits_addend: {} }] }, mapping)).toMatchObject({ operation: 'peek' });
  });

  it('names no endpoint without method and path, and reads the domain as the tenant only when told to', () => {
    expect(mapRateLimitRequest({ domain: 'd', descriptors: [entries(['api_key', 'tg_live_t_x'])] }, mapping).target).toEqual({ key: 'tg_live_t_x', endpoint: NO_ENDPOINT });
    expect(() => mapRateLimitRequest({ domain: 'acme', descriptors: [entries(['generic_key', 'x'])] }, mapping)).toThrow(/no descriptor names the tenant/);
    expect(mapRateLimitRequest({ domain: 'acme', descriptors: [entries(['generic_key', 'x'])] }, { ...mapping, domainIsTenant: true }).target).toMatchObject({ tenant: 'acme' });
  });

  it.each([
    [{ domain: 'd', descriptors: [entries(['tenant', 'a']), entries(['tenant', 'b'])] }, /two different values for tenant/],
    [{ domain: 'd', descriptors: [{ ...entries(['tenant', 'a']), hits_addend: { value: '1' } }, { ...entries(['path', '/x'], ['method', 'GET']), hits_addend: { value: '2' } }] }, /one request has one cost/],
    [{ domain: 'd', descriptors: [entries(['tenant', 'a'], ['api_key', 'k'])] }, /both a tenant and an API key/],
    [{ domain: 'd', descriptors: [entries(['tenant', 'a'], ['path', '/x'])] }, /a path a method/],
    [{ domain: 'd', descriptors: [entries(['tenant', 'Not A Slug'])] }, /must be a slug/],
    [{ domain: 'd', descriptors: [entries(['tenant', 'a'], ['remote_address', 'nowhere'])] }, /IPv4 or IPv6/],
    [{ domain: 'd', descriptors: [entries(['tenant', 'a'], ['k'.repeat(129), 'v'])] }, /at most 128 bytes/],
    [{ domain: 'd', descriptors: [{ entries: [] }] }, /at least one entry/],
  ])('refuses %j', (request, message) => {
    expect(() => mapRateLimitRequest(request, mapping)).toThrow(RlsInvalid);
    expect(() => mapRateLimitRequest(request, mapping)).toThrow(message);
  });

  it("reads a path without its query, up to forward-auth's length; judges no entry it ignores", () => {
    const long = `/v1/items?${'q'.repeat(5000)}`;
    expect(mapRateLimitRequest({ domain: 'd', descriptors: [entries(['tenant', 'a'], ['method', 'GET'], ['path', long], ['header_match', 'x'.repeat(300)])] }, mapping).target.endpoint).toBe('GET /v1/items');
    expect(() => mapRateLimitRequest({ domain: 'd', descriptors: [entries(['tenant', 'a'], ['method', 'GET'], ['path', `/${'p'.repeat(2048)}`])] }, mapping)).toThrow(/1 to 2048 bytes/);
  });

  it('answers an API key no key can be (too long, control characters) with a refusal, not an error', () => {
    expect(mapRateLimitRequest({ domain: 'd', descriptors: [entries(['api_key', 'k'.repeat(129)])] }, mapping)).toMatchObject({ refusal: 'key_invalid' });
    expect(mapRateLimitRequest({ domain: 'd', descriptors: [entries(['api_key', 'k\tk'])] }, mapping)).toMatchObject({ refusal: 'key_invalid' });
    expect(mapRateLimitRequest({ domain: 'd', descriptors: [entries(['api_key', 'tg_live_t_x'])] }, mapping).refusal).toBeUndefined();
  });

  it('refuses unknown entry keys when told to', () => {
    expect(() => mapRateLimitRequest({ domain: 'd', descriptors: [entries(['tenant', 'a'], ['header_match', 'x'])] }, { ...mapping, unknownEntries: 'refuse' })).toThrow(/not an entry key Tollgate reads/);
  });
});

describe('gRPC configuration', () => {
  it('serves nothing without GRPC_PORT; TLS needs both files; RLS_ENTRY_KEYS names known roles', () => {
    expect(loadApiConfig({}).grpc.listener).toBeNull();
    expect(loadApiConfig({ GRPC_PORT: '8081', GRPC_TLS_CERT: '/c.pem', GRPC_TLS_KEY: '/k.pem' }).grpc.listener).toEqual({ host: '0.0.0.0', port: 8081, tls: { certFile: '/c.pem', keyFile: '/k.pem' } });
    expect(() => loadApiConfig({ GRPC_PORT: '8081', GRPC_TLS_CERT: '/c.pem' })).toThrow(/GRPC_TLS_CERT and GRPC_TLS_KEY go together/);
    expect(() => loadApiConfig({ RLS_ENTRY_KEYS: 'user:someone' })).toThrow(/role one of/);
    expect(loadApiConfig({ RLS_ENTRY_KEYS: 'x-user:subject' }).grpc.mapping.entryKeys).toEqual(new Map([['x-user', 'subject']]));
  });
});
