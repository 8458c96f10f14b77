import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { startApi, type TestApi } from '../../../../../../test/support/api';
import { useOperatorApi } from '../../../../../../test/support/context';
import { TEST_DATABASE_URL, TEST_METRICS_TOKEN, TEST_REDIS_URL } from '../../../../../../test/support/env';
import { awayFromMinuteBoundary, createFailureModeTenant, createServiceKey, createTenant, createTenantKey, publishRules, waitFor } from '../../../../../../test/support/fixtures';
import { proxiedRedis, type TcpProxy } from '../../../../../../test/support/tcp-proxy';
import { selfSignedCertificate } from '../../../../../../test/support/tls';
import { rateLimitServiceDefinition, RlsServer } from './rls-server';

// Envoy's rate limit service over gRPC, asked by a real @grpc/grpc-js client with the requests Envoy's `ratelimit`
// HTTP filter sends: a domain, descriptors of entries (request_headers, remote_address, generic_key actions), hits_addend.

type Entry = { key: string; value: string };
interface Descriptor {
  entries: Entry[];
  hits_addend?: { value: number };
}
interface Response {
  overall_code: string;
  statuses: { code: string; current_limit?: { name: string; requests_per_unit: number; unit: string }; limit_remaining?: number; duration_until_reset?: { seconds: string } }[];
  response_headers_to_add?: { key: string; value: string }[];
  dynamic_metadata?: { fields: Record<string, { stringValue?: string; boolValue?: boolean; numberValue?: number }> };
}

const Client = grpc.makeGenericClientConstructor(rateLimitServiceDefinition(), 'RateLimitService');

/** A client of the API's gRPC listener; `ask` sends one ShouldRateLimit with `key` as the service key in `header`. */
function rlsClient(api: TestApi) {
  const port = api.app.get(RlsServer).port;
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as grpc.Client & Record<string, CallableFunction>;
  const ask = (request: { domain: string; descriptors: Descriptor[]; hits_addend?: number }, key: string | null, header = 'authorization') =>
    new Promise<{ response?: Response; error?: grpc.ServiceError }>((resolve) => {
      const metadata = new grpc.Metadata();
      if (key !== null) metadata.set(header, header === 'authorization' ? `Bearer ${key}` : key);
      client['ShouldRateLimit']!(request, metadata, (error: grpc.ServiceError | null, response: Response) => resolve(error ? { error } : { response }));
    });
  return { client, ask };
}

const headersOf = (r: Response) => Object.fromEntries((r.response_headers_to_add ?? []).map((h) => [h.key, h.value]));
const meta = (r: Response) => Object.fromEntries(Object.entries(r.dynamic_metadata?.fields ?? {}).map(([k, v]) => [k, v.stringValue ?? v.boolValue ?? v.numberValue]));
const tenantOf = (slug: string): Descriptor => ({ entries: [{ key: 'tenant', value: slug }] });

describe('ShouldRateLimit (gRPC)', () => {
  const ctx = useOperatorApi({ GRPC_PORT: '0', GRPC_HOST: '127.0.0.1' });
  let rls: ReturnType<typeof rlsClient>;
  let service: string;
  let scoped: string;
  let tenant: string;
  let tenantId: string;
  let other: string;
  let otherKey: string;

  beforeAll(async () => {
    const fixture = await createTenant(ctx.prisma, [{ name: 'minute', windowS: 60, limit: 5 }]);
    tenant = fixture.tenant.slug;
    tenantId = fixture.tenant.id;
    // `POST /v1/messages`: a policy of 3 a minute per subject; `GET /shadow`: a shadow policy of 1 a minute.
    await ctx.prisma.endpointPolicy.create({ data: { planId: fixture.plan.id, name: 'messages', method: 'POST', pattern: '/v1/messages', scope: 'subject', limits: { create: [{ name: 'minute', windowS: 60, limit: 3 }] } } });
    await ctx.prisma.endpointPolicy.create({ data: { planId: fixture.plan.id, name: 'tryout', method: 'GET', pattern: '/shadow', mode: 'shadow', limits: { create: [{ name: 'minute', windowS: 60, limit: 1 }] } } });
    const second = await createTenant(ctx.prisma);
    other = second.tenant.slug;
    ({ key: otherKey } = await createTenantKey(ctx.prisma, second.tenant.id));
    service = await createServiceKey(ctx.prisma);
    scoped = await createServiceKey(ctx.prisma, [tenantId]);
    const { version } = await publishRules(ctx.prisma, TEST_REDIS_URL);
    await ctx.api.waitForRuleVersion(version);
    rls = rlsClient(ctx.api);
    await awayFromMinuteBoundary(15_000);
  });
  afterAll(() => rls?.client.close());

  it("decides a tenant's limits: OK with statuses per descriptor, the limit, its unit, what remains, and the headers", async () => {
    const { response } = await rls.ask({ domain: 'edge', descriptors: [{ entries: [{ key: 'tenant', value: other }, { key: 'generic_key', value: 'checkout' }] }] }, service);
    expect(response!.overall_code).toBe('OK');
    expect(response!.statuses).toHaveLength(1);
    expect(response!.statuses[0]).toMatchObject({ code: 'OK', current_limit: { name: 'minute', requests_per_unit: 10, unit: 'MINUTE' }, limit_remaining: 9 });
    expect(Number(response!.statuses[0]!.duration_until_reset!.seconds)).toBeLessThanOrEqual(60);
    const headers = headersOf(response!);
    expect(headers['RateLimit-Policy']).toContain('"minute";q=10;w=60');
    expect(headers['RateLimit']).toBeDefined();
    expect(meta(response!)).toMatchObject({ tenant: other, mode: 'enforce' });
  });

  it('maps api_key to its tenant and method + path (query left out) to the endpoint: one decision, a status per descriptor', async () => {
    const descriptors: Descriptor[] = [
      { entries: [{ key: 'api_key', value: otherKey }] },
      { entries: [{ key: 'method', value: 'GET' }, { key: 'path', value: '/v1/items?page=2' }] },
      { entries: [{ key: 'remote_address', value: '10.1.2.3' }] },
    ];
    const { response } = await rls.ask({ domain: 'edge', descriptors }, service);
    expect(response!.overall_code).toBe('OK');
    expect(response!.statuses).toHaveLength(3);
    expect(meta(response!)['tenant']).toBe(other);
  });

  it('charges the descriptor hits_addend, else the request hits_addend; 0 peeks; over the limit is OVER_LIMIT with Retry-After', async () => {
    const { tenant: t } = await createTenant(ctx.prisma, [{ name: 'minute', windowS: 60, limit: 5 }]);
    const { version } = await publishRules(ctx.prisma, TEST_REDIS_URL);
    await ctx.api.waitForRuleVersion(version);
    const remaining = async (r: Promise<{ response?: Response }>) => (await r).response!.statuses[0]!.limit_remaining ?? 0;
    expect(await remaining(rls.ask({ domain: 'd', descriptors: [{ ...tenantOf(t.slug), hits_addend: { value: 2 } }], hits_addend: 1 }, service))).toBe(3);
    expect(await remaining(rls.ask({ domain: 'd', descriptors: [tenantOf(t.slug)], hits_addend: 2 }, service))).toBe(1);
    // A peek: what a check would answer now (what would remain after it), nothing charged: the check then answers the same.
    const peek = (await rls.ask({ domain: 'd', descriptors: [{ ...tenantOf(t.slug), hits_addend: { value: 0 } }] }, service)).response!;
    expect(peek.overall_code).toBe('OK');
    expect(peek.statuses[0]!.limit_remaining ?? 0).toBe(0);
    const last = (await rls.ask({ domain: 'd', descriptors: [tenantOf(t.slug)] }, service)).response!;
    expect(last.overall_code).toBe('OK');
    expect(last.statuses[0]!.limit_remaining ?? 0).toBe(0);
    const { response } = await rls.ask({ domain: 'd', descriptors: [tenantOf(t.slug)] }, service);
    expect(response!.overall_code).toBe('OVER_LIMIT');
    expect(response!.statuses[0]!.code).toBe('OVER_LIMIT');
    expect(Number(headersOf(response!)['Retry-After'])).toBeGreaterThanOrEqual(1);
  });

  it('decides every descriptor all or nothing: a policy that denies charges the tenant nothing', async () => {
    const { tenant: t, plan } = await createTenant(ctx.prisma, [{ name: 'minute', windowS: 60, limit: 100 }]);
    await ctx.prisma.endpointPolicy.create({ data: { planId: plan.id, name: 'send', method: 'POST', pattern: '/send', limits: { create: [{ name: 'minute', windowS: 60, limit: 2 }] } } });
    const { version } = await publishRules(ctx.prisma, TEST_REDIS_URL);
    await ctx.api.waitForRuleVersion(version);
    const descriptors: Descriptor[] = [tenantOf(t.slug), { entries: [{ key: 'method', value: 'POST' }, { key: 'path', value: '/send' }] }];
    const codes = [];
    for (let i = 0; i < 4; i += 1) codes.push((await rls.ask({ domain: 'd', descriptors }, service)).response!.overall_code);
    expect(codes).toEqual(['OK', 'OK', 'OVER_LIMIT', 'OVER_LIMIT']);
    // The tenant-wide limit was charged twice, not four times: the denied requests charged no descriptor (a peek
    // answers what would remain after one more: 100 - 2 - 1).
    const peek = await rls.ask({ domain: 'd', descriptors: [{ ...tenantOf(t.slug), hits_addend: { value: 0 } }] }, service);
    const headers = headersOf(peek.response!);
    expect(headers['RateLimit']).toContain('"minute";r=97');
    // Counted as HTTP checks are: the decisions metric, per policy and result.
    const metrics = (await ctx.api.request('GET', '/metrics', { token: TEST_METRICS_TOKEN })).body as string;
    expect(metrics).toContain(`tollgate_decisions_total{tenant="${t.slug}",endpoint="send",result="allowed",mode="enforce"} 2`);
    expect(metrics).toContain(`tollgate_decisions_total{tenant="${t.slug}",endpoint="send",result="denied",mode="enforce"} 2`);
  });

  it('refuses descriptors that name two tenants (or two paths) with INVALID_ARGUMENT, charging nothing', async () => {
    const { error } = await rls.ask({ domain: 'd', descriptors: [tenantOf(tenant), tenantOf(other)] }, service);
    expect(error!.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error!.details).toMatch(/two different values for tenant/);
  });

  it('answers a shadow policy OK and says in dynamic metadata that it would have denied', async () => {
    const descriptors: Descriptor[] = [tenantOf(tenant), { entries: [{ key: 'method', value: 'GET' }, { key: 'path', value: '/shadow' }] }];
    const first = (await rls.ask({ domain: 'd', descriptors }, service)).response!;
    expect(meta(first)).toMatchObject({ mode: 'shadow', policy: 'tryout', would_deny: false });
    const second = (await rls.ask({ domain: 'd', descriptors }, service)).response!;
    expect(second.overall_code).toBe('OK');
    expect(meta(second)).toMatchObject({ mode: 'shadow', would_deny: true });
  });

  it('refuses bad requests with INVALID_ARGUMENT and a message', async () => {
    const cases: [{ domain: string; descriptors: Descriptor[]; hits_addend?: number }, RegExp][] = [
      [{ domain: '', descriptors: [tenantOf(tenant)] }, /domain must not be empty/],
      [{ domain: 'd', descriptors: [] }, /at least one descriptor/],
      [{ domain: 'd', descriptors: Array.from({ length: 17 }, () => tenantOf(tenant)) }, /at most 16 descriptors/],
      [{ domain: 'd', descriptors: [{ entries: [{ key: 'tenant', value: tenant }, { key: 'subject', value: 'x'.repeat(300) }] }] }, /1 to 256 bytes/],
      [{ domain: 'd', descriptors: [{ entries: [{ key: 'tenant', value: tenant }, { key: 'subject', value: 'a\u0007b' }] }] }, /control characters/],
      [{ domain: 'd\n', descriptors: [tenantOf(tenant)] }, /control characters/],
      [{ domain: 'd', descriptors: [{ ...tenantOf(tenant), hits_addend: { value: 1_000_001 } }] }, /hits_addend must be 0 to 1000000/],
      [{ domain: 'd', descriptors: [tenantOf(tenant)], hits_addend: 2_000_000 }, /hits_addend must be at most/],
      [{ domain: 'd', descriptors: [{ entries: [{ key: 'generic_key', value: 'x' }] }] }, /no descriptor names the tenant/],
    ];
    for (const [request, message] of cases) {
      const { error } = await rls.ask(request, service);
      expect(error?.code, String(message)).toBe(grpc.status.INVALID_ARGUMENT);
      expect(error!.details).toMatch(message);
    }
  });

  it('asks for a service key in metadata, as Authorization: Bearer or the gateway header, scoped to its tenants', async () => {
    expect((await rls.ask({ domain: 'd', descriptors: [tenantOf(tenant)] }, null)).error!.code).toBe(grpc.status.UNAUTHENTICATED);
    expect((await rls.ask({ domain: 'd', descriptors: [tenantOf(tenant)] }, 'tg_not_a_key')).error!.code).toBe(grpc.status.UNAUTHENTICATED);
    expect((await rls.ask({ domain: 'd', descriptors: [tenantOf(tenant)] }, service, 'x-tollgate-key')).response!.overall_code).toBe('OK');
    // A key scoped to one tenant: that tenant, and no other (as unknown: NOT_FOUND by slug, a refusal by API key).
    expect((await rls.ask({ domain: 'd', descriptors: [tenantOf(tenant)] }, scoped)).response!.overall_code).toBe('OK');
    expect((await rls.ask({ domain: 'd', descriptors: [tenantOf(other)] }, scoped)).error!.code).toBe(grpc.status.NOT_FOUND);
    const byKey = (await rls.ask({ domain: 'd', descriptors: [{ entries: [{ key: 'api_key', value: otherKey }] }] }, scoped)).response!;
    expect(byKey.overall_code).toBe('OVER_LIMIT');
    expect(meta(byKey)['reason']).toBe('tenant_not_allowed');
    // A client's key no key can be: refused as unknown, never an error (Envoy would let an error through).
    const tooLong = (await rls.ask({ domain: 'd', descriptors: [{ entries: [{ key: 'api_key', value: 'k'.repeat(500) }] }] }, service)).response!;
    expect(tooLong.overall_code).toBe('OVER_LIMIT');
    expect(meta(tooLong)['reason']).toBe('key_invalid');
  });
});

interface ProxiedRls {
  proxy: TcpProxy;
  api: TestApi;
  rls: ReturnType<typeof rlsClient>;
  service: string;
  tenant: string;
}

/**
 * For a describe: an API (gRPC on) whose Redis is reached through a proxy, a service key, the tenant `makeTenant`
 * creates and published rules; its fields are set before the tests. `closeApi: false` leaves closing the API to the
 * tests.
 */
function useProxiedRls(makeTenant: (prisma: PrismaClient) => Promise<string>, env: Record<string, string>, closeApi = true): ProxiedRls {
  const s = {} as ProxiedRls;
  let prisma: PrismaClient | undefined;
  beforeAll(async () => {
    prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    let redisUrl: string;
    ({ proxy: s.proxy, redisUrl } = await proxiedRedis(TEST_REDIS_URL));
    s.tenant = await makeTenant(prisma);
    s.service = await createServiceKey(prisma);
    const { version } = await publishRules(prisma, TEST_REDIS_URL);
    s.api = await startApi({ REDIS_URL: redisUrl, GRPC_PORT: '0', GRPC_HOST: '127.0.0.1', ...env });
    await s.api.waitForRuleVersion(version);
    s.rls = rlsClient(s.api);
  });
  afterAll(async () => {
    s.rls?.client.close();
    if (closeApi) await s.api?.close();
    await s.proxy?.close();
    await prisma?.$disconnect();
  });
  return s;
}

describe('ShouldRateLimit (gRPC) when Redis is down', () => {
  const s = useProxiedRls(async (prisma) => (await createFailureModeTenant(prisma, 10)).tenant.slug, {
    DECISION_DEADLINE_MS: '50',
    BREAKER_FAILURES: '3',
    BREAKER_COOLDOWN_MS: '300',
    DEFAULT_FAILURE_MODE: 'open',
  });
  beforeAll(() => s.proxy.cut());

  const askFor = (path: string) => s.rls.ask({ domain: 'd', descriptors: [tenantOf(s.tenant), { entries: [{ key: 'method', value: 'GET' }, { key: 'path', value: path }] }] }, s.service);

  it('answers by the failure mode: open passes (degraded), closed is UNAVAILABLE, local decides on this node', async () => {
    const open = (await askFor('/anything')).response!;
    expect(open.overall_code).toBe('OK');
    expect(meta(open)['degraded']).toBe(true);
    const closed = await askFor('/closed');
    expect(closed.error!.code).toBe(grpc.status.UNAVAILABLE);
    const local = (await askFor('/local')).response!;
    expect(local.overall_code).toBe('OK');
    expect(meta(local)).toMatchObject({ degraded: true, policy: 'near' });
  });
});

describe('ShouldRateLimit (gRPC) on shutdown', () => {
  // The test closes the API itself.
  const s = useProxiedRls(async (prisma) => (await createTenant(prisma)).tenant.slug, { DECISION_DEADLINE_MS: '5000' }, false);

  it('answers the call in flight (decided by Redis, not degraded), then takes no new calls', async () => {
    const { proxy, api, rls, service, tenant } = s;
    const request = { domain: 'd', descriptors: [tenantOf(tenant)] };
    expect((await rls.ask(request, service)).response!.overall_code).toBe('OK');
    // Redis's replies held back: the next call waits in the server while the application closes.
    proxy.delay(200, 'replies');
    const inFlight = rls.ask(request, service);
    await waitFor(() => api.app.get(RlsServer).callsInFlight > 0);
    const closed = api.close();
    const { response } = await inFlight;
    expect(response!.overall_code).toBe('OK');
    expect(meta(response!)['degraded']).toBeUndefined();
    await closed;
    expect((await rls.ask(request, service)).error!.code).toBe(grpc.status.UNAVAILABLE);
  });
});

describe('ShouldRateLimit (gRPC) over TLS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-grpc-tls-'));
  const { key, cert } = selfSignedCertificate(['localhost']);
  writeFileSync(join(dir, 'key.pem'), key);
  writeFileSync(join(dir, 'cert.pem'), cert);
  const ctx = useOperatorApi({ GRPC_PORT: '0', GRPC_HOST: '127.0.0.1', GRPC_TLS_CERT: join(dir, 'cert.pem'), GRPC_TLS_KEY: join(dir, 'key.pem') });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('answers a client that trusts its certificate, and not a plaintext one', async () => {
    const { tenant } = await createTenant(ctx.prisma);
    const service = await createServiceKey(ctx.prisma);
    const { version } = await publishRules(ctx.prisma, TEST_REDIS_URL);
    await ctx.api.waitForRuleVersion(version);
    const port = ctx.api.app.get(RlsServer).port;
    const ask = (credentials: grpc.ChannelCredentials) =>
      new Promise<{ response?: Response; error?: grpc.ServiceError }>((resolve) => {
        const client = new Client(`localhost:${port}`, credentials, { 'grpc.max_reconnect_backoff_ms': 200 }) as grpc.Client & Record<string, CallableFunction>;
        const metadata = new grpc.Metadata();
        metadata.set('authorization', `Bearer ${service}`);
        client['ShouldRateLimit']!({ domain: 'd', descriptors: [tenantOf(tenant.slug)] }, metadata, { deadline: Date.now() + 3_000 }, (error: grpc.ServiceError | null, response: Response) => {
          client.close();
          resolve(error ? { error } : { response });
        });
      });
    expect((await ask(grpc.credentials.createSsl(Buffer.from(cert)))).response!.overall_code).toBe('OK');
    expect((await ask(grpc.credentials.createInsecure())).error).toBeDefined();
  });
});
