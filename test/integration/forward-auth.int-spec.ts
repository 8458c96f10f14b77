import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINT_CACHE_KEY_CHARS, ENDPOINT_CACHE_SIZE } from '../../apps/api/src/modules/rules/enforced-rule-set';
import { RulesInForce } from '../../apps/api/src/modules/rules/rules-in-force';
import { startApi, type TestApi } from '../support/api';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/env';
import { awayFromMinuteBoundary, createServiceKey, createTenant, createTenantKey, publishRules } from '../support/fixtures';
import { createGatewayTenant } from '../support/gateway-fixture';

/** An original request no policy of these tests names, as a gateway that sends X-Forwarded-* (the default) asks. */
const ELSEWHERE = { 'x-forwarded-method': 'GET', 'x-forwarded-uri': '/x' };
/** What a client can add to its own request to look like another one, in every header some gateway reads. */
const SPOOFED = {
  'x-forwarded-method': 'GET',
  'x-forwarded-uri': '/v1/anything-else',
  'x-original-method': 'GET',
  'x-original-uri': '/v1/anything-else',
};

// /v1/forward-auth as gateways call it (nginx, Caddy, Traefik, Envoy), and client identity: behind one trusted proxy
// hop, client-supplied X-Forwarded-For values do not make new buckets; one IPv6 /64 is one client; an
// IPv4-mapped address counts as the IPv4 address.
describe('forward-auth for gateways', () => {
  let prisma: PrismaClient;
  let api: TestApi;
  let untrusting: TestApi;
  /** Told that the gateway sends X-Original-Method/-URI (FORWARD_AUTH_ORIGINAL=x-original). */
  let viaOriginal: TestApi;
  /** Told that the gateway asks with the original method and path after the route (FORWARD_AUTH_ORIGINAL=path). */
  let viaPath: TestApi;
  let gatewayKey: string;
  let fixture: Awaited<ReturnType<typeof createTenant>>;
  let tenantKey: string;

  beforeAll(async () => {
    prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    let version: number;
    ({ fixture, tenantKey, gatewayKey, version } = await createGatewayTenant(prisma, [
      { name: 'items', method: 'GET', pattern: '/v1/items/*', limit: 10 },
      { name: 'signup', method: 'POST', pattern: '/signup', scope: 'ip', limit: 2 },
      { name: 'peruser', method: 'GET', pattern: '/me', scope: 'subject', limit: 1 },
    ]));
    api = await startApi({ TRUST_PROXY: '1', FORWARD_AUTH_SUBJECT_HEADER: 'x-user-id' });
    untrusting = await startApi();
    viaOriginal = await startApi({ TRUST_PROXY: '1', FORWARD_AUTH_ORIGINAL: 'x-original' });
    viaPath = await startApi({ TRUST_PROXY: '1', FORWARD_AUTH_ORIGINAL: 'path' });
    await untilEveryNodeHas(version);
  });
  afterAll(async () => {
    await api.close();
    await untrusting.close();
    await viaOriginal.close();
    await viaPath.close();
    await prisma.$disconnect();
  });

  const ask = (headers: Record<string, string>, path = '/v1/forward-auth', node = api) =>
    node.request('GET', path, { headers: { 'x-tollgate-key': gatewayKey, ...headers } });

  async function untilEveryNodeHas(version: number): Promise<void> {
    for (const node of [api, untrusting, viaOriginal, viaPath]) await node.waitForRuleVersion(version);
  }

  /** A tenant of its own with `POST /v1/expensive` at 2 a minute per client address, and its key. */
  async function expensiveTenant(): Promise<string> {
    const own = await createTenant(prisma, [{ name: 'minute', windowS: 60, limit: 1000 }]);
    await prisma.endpointPolicy.create({
      data: { planId: own.plan.id, name: 'expensive', method: 'POST', pattern: '/v1/expensive', scope: 'ip', limits: { create: [{ name: 'minute', windowS: 60, limit: 2 }] } },
    });
    const key = (await createTenantKey(prisma, own.tenant.id)).key;
    await untilEveryNodeHas((await publishRules(prisma, TEST_REDIS_URL)).version);
    return key;
  }

  it('passes with 200 and the headers, then denies the 11th of a 10-a-minute policy with 429 and Retry-After', async () => {
    await awayFromMinuteBoundary();
    const original = { 'x-api-key': tenantKey, 'x-forwarded-method': 'GET', 'x-forwarded-uri': '/v1/items/7?full=1' };
    for (let i = 0; i < 10; i += 1) {
      const r = await ask(original);
      expect(r.status).toBe(200);
      expect(r.headers.get('x-ratelimit-remaining')).toBe(String(9 - i));
      expect(r.headers.get('ratelimit-policy')).toContain('"items-minute";q=10;w=60');
    }
    const denied = await ask(original);
    expect(denied.status).toBe(429);
    expect(Number(denied.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(denied.headers.get('x-ratelimit-remaining')).toBe('0');
    // nginx's auth_request wants 401/403: the gateway asks for 403.
    expect((await ask(original, '/v1/forward-auth?deny_status=403')).status).toBe(403);
    expect((await ask(original, '/v1/forward-auth?deny_status=200')).status).toBe(400);
  });

  it('reads the original request from X-Original-* or Envoy\'s path prefix when told to, and the key from Authorization: Bearer', async () => {
    const viaNginx = await ask({ 'x-api-key': tenantKey, 'x-original-method': 'GET', 'x-original-uri': '/other' }, '/v1/forward-auth', viaOriginal);
    expect(viaNginx.status).toBe(200);
    const viaEnvoy = await viaPath.request('POST', '/v1/forward-auth/other/path', { headers: { 'x-tollgate-key': gatewayKey, authorization: `Bearer ${tenantKey}` } });
    expect(viaEnvoy.status).toBe(200);
    expect(viaEnvoy.headers.get('x-ratelimit-limit')).toBe('1000');
  });

  it('keeps the client\'s Authorization for the client: the gateway authenticates with its own header', async () => {
    // A gateway key in Authorization (the client's header) is not the gateway's credential.
    const r = await api.request('GET', '/v1/forward-auth', { token: gatewayKey, headers: { 'x-api-key': tenantKey, ...ELSEWHERE } });
    expect(r.status).toBe(401);
    expect((await ask({ 'x-api-key': tenantKey, ...ELSEWHERE }, '/v1/forward-auth', api)).status).toBe(200);
    expect((await api.request('GET', '/v1/forward-auth', { headers: { 'x-tollgate-key': tenantKey, 'x-api-key': tenantKey, ...ELSEWHERE } })).status).toBe(403);
  });

  it('answers 401 for a client without a key or with an unknown, revoked or expired one', async () => {
    expect((await ask(ELSEWHERE)).status).toBe(401);
    const r = await ask({ 'x-api-key': 'tg_live_t_nonsense', ...ELSEWHERE });
    expect(r.status).toBe(401);
    expect(r.body.reason).toBe('key_invalid');
  });

  it('answers 403 tenant_not_allowed, whatever deny_status says, for a valid key of a tenant the gateway may not check', async () => {
    const other = await createTenant(prisma);
    const scoped = await createServiceKey(prisma, [other.tenant.id]);
    await untilEveryNodeHas((await publishRules(prisma, TEST_REDIS_URL)).version);
    for (const path of ['/v1/forward-auth', '/v1/forward-auth?deny_status=429']) {
      const r = await api.request('GET', path, { headers: { 'x-tollgate-key': scoped, 'x-api-key': tenantKey, ...ELSEWHERE } });
      expect([r.status, r.body]).toEqual([403, { allowed: false, retryAfterMs: 0, reason: 'tenant_not_allowed' }]);
    }
  });

  it('counts one bucket per client behind one trusted hop, whatever X-Forwarded-For the client made up', async () => {
    await awayFromMinuteBoundary();
    const signup = (xff: string, node = api) => ask({ 'x-api-key': tenantKey, 'x-forwarded-method': 'POST', 'x-forwarded-uri': '/signup', 'x-forwarded-for': xff }, '/v1/forward-auth', node);
    // The gateway appends the address it saw; everything before it is the client's to invent.
    expect((await signup('10.9.8.7, 203.0.113.7')).status).toBe(200);
    expect((await signup('1.1.1.1, 2.2.2.2, 203.0.113.7')).status).toBe(200);
    expect((await signup('203.0.113.99, 203.0.113.7')).status).toBe(429);
    // IPv4-mapped IPv6 is the same client as the IPv4 address.
    expect((await signup('::ffff:203.0.113.7')).status).toBe(429);
    // One IPv6 /64 is one client; the next /64 is another.
    expect((await signup('2001:db8:7:1::1')).status).toBe(200);
    expect((await signup('2001:db8:7:1:aaaa::2')).status).toBe(200);
    expect((await signup('2001:db8:7:1:ffff::3')).status).toBe(429);
    expect((await signup('2001:db8:7:2::1')).status).toBe(200);
    // Without TRUST_PROXY, X-Forwarded-For is ignored altogether: the TCP peer (here 127.0.0.1) is the client.
    expect((await signup('198.51.100.1', untrusting)).status).toBe(200);
    expect((await signup('198.51.100.2', untrusting)).status).toBe(200);
    expect((await signup('198.51.100.3', untrusting)).status).toBe(429);
  });

  it('counts per user when the gateway names one (FORWARD_AUTH_SUBJECT_HEADER)', async () => {
    const me = (user: string) => ask({ 'x-api-key': tenantKey, 'x-forwarded-method': 'GET', 'x-forwarded-uri': '/me', 'x-user-id': user });
    expect((await me('alice')).status).toBe(200);
    expect((await me('alice')).status).toBe(429);
    expect((await me('bob')).status).toBe(200);
  });

  describe('reads the original request from the one source FORWARD_AUTH_ORIGINAL names, whatever else the client sends', () => {
    it('x-forwarded (the default): a client\'s X-Original-* is not read, and without X-Forwarded-* nothing is decided', async () => {
      await awayFromMinuteBoundary();
      const key = await expensiveTenant();
      const original = { 'x-api-key': key, 'x-forwarded-method': 'POST', 'x-forwarded-uri': '/v1/expensive', 'x-original-method': 'GET', 'x-original-uri': '/v1/anything-else' };
      expect((await ask(original)).status).toBe(200);
      expect((await ask(original)).status).toBe(200);
      const denied = await ask(original);
      expect(denied.status).toBe(429);
      expect(denied.headers.get('ratelimit-policy')).toContain('"expensive-minute";q=2;w=60');
      // The other pair alone is a gateway that does not send what Tollgate was told: 400, no guess at `GET /`.
      const wrongPair = await ask({ 'x-api-key': key, 'x-original-method': 'GET', 'x-original-uri': '/v1/anything-else' });
      expect(wrongPair.status).toBe(400);
      expect(wrongPair.body).toEqual({ error: { code: 'validation_failed', message: expect.stringContaining('x-forwarded-method'), field: 'x-forwarded-method' } });
      const noUri = await ask({ 'x-api-key': key, 'x-forwarded-method': 'GET' });
      expect(noUri.body.error).toMatchObject({ code: 'validation_failed', field: 'x-forwarded-uri' });
    });

    it('x-original (nginx after its docs): a client\'s X-Forwarded-Method/-Uri are not read', async () => {
      await awayFromMinuteBoundary();
      const key = await expensiveTenant();
      // What the outside probe sent through nginx: the gateway's X-Original-* pair and the client's own X-Forwarded-* pair.
      const original = { 'x-api-key': key, ...SPOOFED, 'x-original-method': 'POST', 'x-original-uri': '/v1/expensive' };
      const statuses: number[] = [];
      for (let i = 0; i < 5; i += 1) statuses.push((await ask(original, '/v1/forward-auth', viaOriginal)).status);
      expect(statuses).toEqual([200, 200, 429, 429, 429]);
      expect((await ask({ 'x-api-key': key, ...ELSEWHERE }, '/v1/forward-auth', viaOriginal)).body.error).toMatchObject({ code: 'validation_failed', field: 'x-original-method' });
    });

    it('path (Envoy): no forwarding header is read, and the client\'s query string sets no deny status', async () => {
      await awayFromMinuteBoundary();
      const key = await expensiveTenant();
      const statuses: number[] = [];
      for (let i = 0; i < 4; i += 1) {
        const r = await viaPath.request('POST', '/v1/forward-auth/v1/expensive?deny_status=418', { headers: { 'x-tollgate-key': gatewayKey, 'x-api-key': key, ...SPOOFED } });
        statuses.push(r.status);
      }
      expect(statuses).toEqual([200, 200, 429, 429]);
    });

    it('decides on the path an upstream routes: dot segments removed, percent-encoded letters decoded', async () => {
      await awayFromMinuteBoundary();
      const key = await expensiveTenant();
      const statuses: number[] = [];
      for (const uri of ['/v1/%65xpensive', '/v1/items/../expensive?x=1', '/v1/./%65%78pensive'])
        statuses.push((await ask({ 'x-api-key': key, 'x-forwarded-method': 'post', 'x-forwarded-uri': uri })).status);
      expect(statuses).toEqual([200, 200, 429]);
    });

    it('refuses a method that is not one, or a URI that is not a path (400)', async () => {
      for (const original of [
        { 'x-forwarded-method': 'GET /v1/cheap', 'x-forwarded-uri': '/v1/expensive' },
        { 'x-forwarded-method': 'POST', 'x-forwarded-uri': 'http://elsewhere/v1/expensive' },
        { 'x-forwarded-method': 'POST', 'x-forwarded-uri': '/v1/exp ensive' },
      ]) {
        const r = await ask({ 'x-api-key': tenantKey, ...original });
        expect(r.status, JSON.stringify(original)).toBe(400);
        expect(r.body.error.code).toBe('validation_failed');
      }
    });
  });

  describe('bounds what a request may make Tollgate count or remember', () => {
    /** What is left of the tenant's own minute limit, read without charging (a peek). */
    const tenantMinuteLeft = async (key: string) =>
      (await api.request('POST', '/v1/check/peek', { token: gatewayKey, body: { key, endpoint: 'GET /elsewhere' } })).body.limits[0].remaining as number;

    it('answers 414 uri_too_long for an original path over 2048 bytes and counts nothing; a long query is no longer path', async () => {
      await awayFromMinuteBoundary();
      const key = await expensiveTenant();
      const left = await tenantMinuteLeft(key);
      const longest = `/v1/${'a'.repeat(2044)}`;
      const tooLong = await ask({ 'x-api-key': key, 'x-forwarded-method': 'POST', 'x-forwarded-uri': `${longest}a` });
      expect(tooLong.status).toBe(414);
      expect(tooLong.body).toEqual({ error: { code: 'uri_too_long', message: 'the original path must be at most 2048 bytes', field: 'x-forwarded-uri' } });
      const viaEnvoy = await viaPath.request('GET', `/v1/forward-auth${longest}a`, { headers: { 'x-tollgate-key': gatewayKey, 'x-api-key': key } });
      expect(viaEnvoy.body.error).toMatchObject({ code: 'uri_too_long', field: 'path' });
      expect(await tenantMinuteLeft(key)).toBe(left);
      expect((await ask({ 'x-api-key': key, 'x-forwarded-method': 'POST', 'x-forwarded-uri': `${longest}?${'q'.repeat(8000)}` })).status).toBe(200);
      expect(await tenantMinuteLeft(key)).toBe(left - 1);
    });

    it('refuses a tenant key longer than any key (401 key_invalid) and a subject over 256 bytes (400), charging nothing', async () => {
      const key = await expensiveTenant();
      const left = await tenantMinuteLeft(key);
      const longKey = await ask({ 'x-api-key': `${key}${'k'.repeat(8000)}`, ...ELSEWHERE });
      expect(longKey.status).toBe(401);
      expect(longKey.body).toEqual({ allowed: false, reason: 'key_invalid' });
      const longSubject = await ask({ 'x-api-key': key, 'x-user-id': 'u'.repeat(257), ...ELSEWHERE });
      expect(longSubject.status).toBe(400);
      expect(longSubject.body.error).toMatchObject({ code: 'validation_failed', field: 'x-user-id' });
      expect(await tenantMinuteLeft(key)).toBe(left);
    });

    it(`keeps the policy cache within its bounds (${ENDPOINT_CACHE_SIZE} entries, ${ENDPOINT_CACHE_KEY_CHARS} characters of keys) after many unique long paths`, async () => {
      const cache = api.app.get(RulesInForce);
      const uri = (i: number) => `/v1/items/${i}/${'p'.repeat(2048)}`.slice(0, 2048);
      // Through forward-auth: every unique path is remembered, with its whole length counted…
      const before = cache.endpointCacheSize();
      for (let i = 0; i < 50; i += 1) expect((await ask({ 'x-api-key': tenantKey, 'x-forwarded-method': 'PUT', 'x-forwarded-uri': uri(i) })).status).toBe(200);
      const after = cache.endpointCacheSize();
      expect(after.entries - before.entries).toBe(50);
      expect(after.keyChars - before.keyChars).toBeGreaterThan(50 * 2048);
      // …and past the bound (the same lookups, asked in this process to spare 5,000 HTTP calls): 48,000 such paths
      // grew a cache bounded by entries only by 400 MB.
      const rules = cache.enforced();
      const tenant = rules.tenant(fixture.tenant.slug)!;
      let largest = 0;
      for (let i = 50; i < Math.ceil((ENDPOINT_CACHE_KEY_CHARS * 1.5) / 2048); i += 1) {
        rules.limitSetFor(tenant, `PUT ${uri(i)}`);
        const size = cache.endpointCacheSize();
        largest = Math.max(largest, size.keyChars);
        expect(size.keyChars).toBeLessThanOrEqual(ENDPOINT_CACHE_KEY_CHARS);
        expect(size.entries).toBeLessThanOrEqual(ENDPOINT_CACHE_SIZE);
      }
      expect(largest).toBeGreaterThan(ENDPOINT_CACHE_KEY_CHARS * 0.9);
    });

    it('does not remember the hashes of bearer tokens longer than a key can be', async () => {
      const cache = api.app.get(RulesInForce);
      const before = cache.keyHashCacheSize();
      for (let i = 0; i < 20; i += 1) {
        const r = await api.request('POST', '/v1/check', { token: `tg_live_s_${i}${'x'.repeat(16_000)}`, body: { tenant: fixture.tenant.slug, endpoint: 'GET /' } });
        expect(r.status).toBe(401);
      }
      expect(cache.keyHashCacheSize()).toBe(before);
      // A key-sized token is remembered (the cache does its job for real keys).
      await api.request('POST', '/v1/check', { token: `tg_live_s_${'y'.repeat(40)}`, body: { tenant: fixture.tenant.slug, endpoint: 'GET /' } });
      expect(cache.keyHashCacheSize()).toBe(before + 1);
    });
  });
});
