import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../../../../../../test/support/context';
import { TEST_REDIS_URL } from '../../../../../../test/support/env';
import { awayFromMinuteBoundary, createServiceKey, createTenant, publishRules } from '../../../../../../test/support/fixtures';
import { GOLDEN_CASES, type GoldenAnswer, type GoldenCase, type GoldenRequest, RLS_CONFORMANCE_ENTRY_KEYS } from '../../../../../../test/support/rls-conformance-cases';
import { DEFAULT_ENTRY_KEYS } from './rls-mapping';
import { rateLimitServiceDefinition, RlsServer } from './rls-server';

// envoyproxy/ratelimit's documented cases (test/support/rls-conformance-cases.ts), each on a tenant of its own whose plan
// and policies translate the reference's configuration, asked by a real @grpc/grpc-js client as Envoy asks.

interface Answer {
  overall_code: string;
  statuses: { code: string; current_limit?: { name: string; requests_per_unit: number; unit: string }; limit_remaining?: number; duration_until_reset?: { seconds?: string; nanos?: number } }[];
  response_headers_to_add?: { key: string; value: string }[];
  dynamic_metadata?: { fields: Record<string, { stringValue?: string; boolValue?: boolean; numberValue?: number }> };
}

const Client = grpc.makeGenericClientConstructor(rateLimitServiceDefinition(), 'RateLimitService');

/**
 * The messages as Envoy's published protos number them (envoy/service/ratelimit/v3/rls.proto,
 * envoy/extensions/common/ratelimit/v3/ratelimit.proto, envoy/config/core/v3/base.proto, google/protobuf/*), built
 * here field by field without the service's .proto files: a number the service declared wrongly reads or writes
 * the wrong field, and the test that sends these bytes fails.
 */
function publishedMessages() {
  const type = (name: string, fields: [name: string, id: number, type: string, rule?: 'repeated'][]) => {
    const t = new protobuf.Type(name);
    for (const [field, id, fieldType, rule] of fields) t.add(new protobuf.Field(field, id, fieldType, rule));
    return t;
  };
  const root = new protobuf.Root();
  root.add(type('UInt64Value', [['value', 1, 'uint64']]));
  root.add(type('Entry', [['key', 1, 'string'], ['value', 2, 'string']]));
  root.add(type('RateLimitOverride', [['requests_per_unit', 1, 'uint32'], ['unit', 2, 'int32']]));
  root.add(type('RateLimitDescriptor', [['entries', 1, 'Entry', 'repeated'], ['limit', 2, 'RateLimitOverride'], ['hits_addend', 3, 'UInt64Value']]));
  root.add(type('RateLimitRequest', [['domain', 1, 'string'], ['descriptors', 2, 'RateLimitDescriptor', 'repeated'], ['hits_addend', 3, 'uint32']]));
  root.add(type('RateLimit', [['requests_per_unit', 1, 'uint32'], ['unit', 2, 'int32'], ['name', 3, 'string']]));
  root.add(type('Duration', [['seconds', 1, 'int64'], ['nanos', 2, 'int32']]));
  root.add(type('DescriptorStatus', [['code', 1, 'int32'], ['current_limit', 2, 'RateLimit'], ['limit_remaining', 3, 'uint32'], ['duration_until_reset', 4, 'Duration'], ['quota', 5, 'bytes']]));
  root.add(type('HeaderValue', [['key', 1, 'string'], ['value', 2, 'string']]));
  root.add(type('Value', [['null_value', 1, 'int32'], ['number_value', 2, 'double'], ['string_value', 3, 'string'], ['bool_value', 4, 'bool']]));
  root.add(new protobuf.Type('Struct').add(new protobuf.MapField('fields', 1, 'string', 'Value')));
  root.add(
    type('RateLimitResponse', [
      ['overall_code', 1, 'int32'],
      ['statuses', 2, 'DescriptorStatus', 'repeated'],
      ['response_headers_to_add', 3, 'HeaderValue', 'repeated'],
      ['request_headers_to_add', 4, 'HeaderValue', 'repeated'],
      ['raw_body', 5, 'bytes'],
      ['dynamic_metadata', 6, 'Struct'],
      ['quota', 7, 'bytes'],
    ]),
  );
  return { request: root.lookupType('RateLimitRequest'), response: root.lookupType('RateLimitResponse') };
}

/** The request Envoy would send for a golden request, in the loader's field names. */
function wireRequest(domain: string, request: GoldenRequest) {
  return {
    domain,
    descriptors: request.descriptors.map((d) => ({
      entries: d.entries.map(([key, value]) => ({ key, value })),
      ...(d.hits_addend !== undefined ? { hits_addend: { value: d.hits_addend } } : {}),
      ...(d.limit ? { limit: d.limit } : {}),
    })),
    ...(request.hits_addend !== undefined ? { hits_addend: request.hits_addend } : {}),
  };
}

/** An answer's fields compared with a golden answer: each mismatch named (an empty list: it conforms). */
function mismatches(answer: Answer, expected: GoldenAnswer, descriptorCount: number): string[] {
  const found: string[] = [];
  const same = (field: string, actual: unknown, wanted: unknown) => {
    if (actual !== wanted) found.push(`${field}: ${JSON.stringify(actual)}, expected ${JSON.stringify(wanted)}`);
  };
  same('overall_code', answer.overall_code, expected.overall_code);
  same('statuses.length', answer.statuses.length, descriptorCount);
  answer.statuses.forEach((status, i) => {
    const want = expected.status;
    same(`statuses.${i}.code`, status.code, want.code);
    for (const field of ['name', 'requests_per_unit', 'unit'] as const) same(`statuses.${i}.current_limit.${field}`, status.current_limit?.[field], want.current_limit[field]);
    same(`statuses.${i}.limit_remaining`, status.limit_remaining ?? 0, want.limit_remaining);
    const resetS = Number(status.duration_until_reset?.seconds ?? 0) + (status.duration_until_reset?.nanos ?? 0) / 1e9;
    if (!(resetS > 0 && resetS <= want.reset_within_s)) found.push(`statuses.${i}.duration_until_reset: ${resetS} s, expected within (0, ${want.reset_within_s}]`);
  });
  const headers = new Map((answer.response_headers_to_add ?? []).map((h) => [h.key, h.value]));
  for (const [name, want] of Object.entries(expected.headers ?? {})) {
    const value = headers.get(name);
    if (want === true) {
      if (value === undefined) found.push(`header ${name}: missing`);
    } else if (typeof want === 'string') same(`header ${name}`, value, want);
    else if (value === undefined || !new RegExp(want.pattern).test(value)) found.push(`header ${name}: ${JSON.stringify(value)}, expected to hold /${want.pattern}/`);
  }
  const fields = answer.dynamic_metadata?.fields ?? {};
  for (const [name, want] of Object.entries(expected.metadata ?? {})) {
    const value = fields[name];
    same(`dynamic_metadata.${name}`, value?.stringValue ?? value?.boolValue ?? value?.numberValue, want);
  }
  return found;
}

describe("ShouldRateLimit conforms to envoyproxy/ratelimit's documented cases", () => {
  const ctx = useOperatorApi({ GRPC_PORT: '0', GRPC_HOST: '127.0.0.1', RLS_DOMAIN_IS_TENANT: 'true', RLS_ENTRY_KEYS: `${DEFAULT_ENTRY_KEYS},${RLS_CONFORMANCE_ENTRY_KEYS}` });
  let client: grpc.Client & Record<string, CallableFunction>;
  let service: string;
  const domains = new Map<GoldenCase, string>();
  let wireTenant: string;

  beforeAll(async () => {
    for (const golden of GOLDEN_CASES) {
      const slug = `${golden.domain}-${randomUUID().slice(0, 8)}`;
      const plan = await ctx.prisma.plan.create({ data: { slug, name: slug, limits: { create: golden.plan } } });
      await ctx.prisma.tenant.create({ data: { slug, name: slug, planId: plan.id } });
      for (const policy of golden.policies ?? []) {
        const { limits, ...fields } = policy;
        await ctx.prisma.endpointPolicy.create({ data: { ...fields, planId: plan.id, limits: { create: limits } } });
      }
      domains.set(golden, slug);
    }
    wireTenant = (await createTenant(ctx.prisma, [{ name: 'minute', windowS: 60, limit: 10 }])).tenant.slug;
    service = await createServiceKey(ctx.prisma);
    const { version } = await publishRules(ctx.prisma, TEST_REDIS_URL);
    await ctx.api.waitForRuleVersion(version);
    client = new Client(`127.0.0.1:${ctx.api.app.get(RlsServer).port}`, grpc.credentials.createInsecure()) as typeof client;
  });
  afterAll(() => client?.close());

  const ask = (domain: string, request: GoldenRequest) =>
    new Promise<Answer>((resolve, reject) => {
      const metadata = new grpc.Metadata();
      metadata.set('x-tollgate-key', service);
      client['ShouldRateLimit']!(wireRequest(domain, request), metadata, (err: grpc.ServiceError | null, answer: Answer) => (err ? reject(err) : resolve(answer)));
    });

  it.each(GOLDEN_CASES.map((golden) => [golden.name, golden] as const))('%s', async (_name, golden) => {
    const domain = domains.get(golden)!;
    // Each case takes well under a second; one that straddled a minute would find its per-minute window reset.
    await awayFromMinuteBoundary(10_000);
    for (const [index, step] of golden.steps.entries()) {
      const times = step.times ?? 1;
      for (let i = 1; i < times; i += 1) expect((await ask(domain, step.request)).overall_code, `step ${index}, request ${i} of ${times}`).toBe('OK');
      expect(mismatches(await ask(domain, step.request), step.expect, step.request.descriptors.length), `step ${index}`).toEqual([]);
    }
  });

  it("reads and writes every field at the published numbers (bytes built without the service's .proto files)", async () => {
    const { request, response } = publishedMessages();
    const call = (message: Record<string, unknown>) =>
      new Promise<Record<string, any>>((resolve, reject) => { // eslint-disable-line @typescript-eslint/no-explicit-any -- a decoded message, read field by field
        const metadata = new grpc.Metadata();
        metadata.set('x-tollgate-key', service);
        const bytes = Buffer.from(request.encode(request.fromObject(message)).finish());
        client.makeUnaryRequest('/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit', (b: Buffer) => b, (b: Buffer) => b, bytes, metadata, (err, reply) =>
          err || !reply ? reject(err ?? new Error('no reply')) : resolve(response.toObject(response.decode(reply), { longs: Number, defaults: false })),
        );
      });
    await awayFromMinuteBoundary(10_000);
    const descriptor = (hits?: number) => ({ entries: [{ key: 'tenant', value: wireTenant }], ...(hits !== undefined ? { hits_addend: { value: hits } } : {}) });
    // RateLimitDescriptor.hits_addend (3, UInt64Value) over RateLimitRequest.hits_addend (3, uint32); the override at 2 is not obeyed.
    const first = await call({ domain: 'wire', descriptors: [{ ...descriptor(4), limit: { requests_per_unit: 1, unit: 1 } }], hits_addend: 2 });
    expect(first['overall_code']).toBe(1); // OK
    expect(first['statuses']).toHaveLength(1);
    expect(first['statuses'][0]).toMatchObject({ code: 1, current_limit: { name: 'minute', requests_per_unit: 10, unit: 2 }, limit_remaining: 6 }); // MINUTE
    expect(first['statuses'][0]['duration_until_reset']['seconds']).toBeLessThanOrEqual(60);
    const headers = new Map((first['response_headers_to_add'] as { key: string; value: string }[]).map((h) => [h.key, h.value]));
    expect(headers.get('RateLimit-Policy')).toBe('"minute";q=10;w=60');
    expect(first['dynamic_metadata']['fields']).toMatchObject({ tenant: { string_value: wireTenant }, mode: { string_value: 'enforce' } });
    expect(first['request_headers_to_add']).toBeUndefined();
    // RateLimitRequest.hits_addend alone.
    expect((await call({ domain: 'wire', descriptors: [descriptor()], hits_addend: 2 }))['statuses'][0]['limit_remaining']).toBe(4);
    const denied = await call({ domain: 'wire', descriptors: [descriptor(), descriptor()], hits_addend: 5 });
    expect(denied['overall_code']).toBe(2); // OVER_LIMIT
    expect(denied['statuses'].map((s: { code: number }) => s.code)).toEqual([2, 2]);
    expect(new Map((denied['response_headers_to_add'] as { key: string; value: string }[]).map((h) => [h.key, h.value])).get('Retry-After')).toMatch(/^[1-9]\d*$/);
  });
});
