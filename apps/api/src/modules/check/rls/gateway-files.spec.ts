import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { DEFAULT_ENTRY_KEYS, parseEntryKeys } from './rls-mapping';

// The gateway files for the rate limit service cannot be run here (no Envoy binary): what can be checked is that they
// parse, that the descriptor keys they send are the ones Tollgate reads by default, and that they call it with a
// service key over HTTP/2.
const GATEWAYS = join(__dirname, '../../../../../../docker/gateways');
const FILES = ['envoy-rls.yaml', 'istio-envoyfilter-rls.yaml', 'envoy-gateway-rls.yaml'];

/** Every value of `key` anywhere in `node`. */
function valuesOf(node: unknown, key: string): unknown[] {
  if (Array.isArray(node)) return node.flatMap((n) => valuesOf(n, key));
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([k, v]) => [...(k === key ? [v] : []), ...valuesOf(v, key)]);
}

describe.each(FILES)('docker/gateways/%s', (file) => {
  const text = readFileSync(join(GATEWAYS, file), 'utf8');
  const docs = parseAllDocuments(text);
  const content = docs.map((d) => d.toJS());

  it('parses, and sends only descriptor keys Tollgate reads, with the tenant in each descriptor', () => {
    expect(docs.flatMap((d) => d.errors)).toEqual([]);
    const read = parseEntryKeys(DEFAULT_ENTRY_KEYS);
    const descriptors = valuesOf(content, 'actions') as Record<string, { descriptor_key?: string }>[][];
    expect(descriptors.length).toBeGreaterThan(0);
    for (const list of descriptors) {
      const keys = list.map((a) => (a['remote_address'] ? 'remote_address' : (Object.values(a)[0]?.descriptor_key ?? '')));
      for (const key of keys) expect(read.has(key), key).toBe(true);
      expect(keys.some((k) => read.get(k) === 'key' || read.get(k) === 'tenant')).toBe(true);
    }
  });

  it('calls the rate limit service with the gateway service key, v3', () => {
    expect(valuesOf(content, 'transport_api_version')).toContain('V3');
    const metadata = valuesOf(content, 'initial_metadata').flat() as { key: string }[];
    expect(metadata.map((m) => m.key)).toContain('x-tollgate-key');
  });

  it('refuses a request with 503 when Tollgate answers an error or cannot be asked (a closed policy stays closed)', () => {
    expect(valuesOf(content, 'failure_mode_deny')).toEqual([true]);
    expect(valuesOf(content, 'status_on_error')).toEqual([{ code: 'ServiceUnavailable' }]);
    expect(text).toMatch(/failure_mode_deny: true\n/);
  });
});

describe('docker/compose.yml and docker/compose.scale.yml', () => {
  const DOCKER = join(GATEWAYS, '..');
  const compose = (file: string) => parseAllDocuments(readFileSync(join(DOCKER, file), 'utf8'), { merge: true })[0]!.toJS({ maxAliasCount: -1 }) as { services: Record<string, { environment?: Record<string, string>; ports?: string[] }> };
  const envoy = parseAllDocuments(readFileSync(join(GATEWAYS, 'envoy-rls.yaml'), 'utf8'))[0]!.toJS();
  const rlsPort = (valuesOf(valuesOf(envoy, 'clusters').flat().filter((c) => (c as { name: string }).name === 'tollgate_rls'), 'port_value') as number[])[0];

  it("serve the rate limit service on envoy-rls.yaml's port, published on 127.0.0.1", () => {
    const { api } = compose('compose.yml').services;
    expect(api?.environment?.['GRPC_PORT']).toBe(String(rlsPort));
    expect(api?.ports).toContain(`127.0.0.1:${rlsPort}:${rlsPort}`);
    const scale = compose('compose.scale.yml').services;
    for (const node of ['api-1', 'api-2', 'api-3']) expect(scale[node]?.environment?.['GRPC_PORT'], node).toBe(String(rlsPort));
    expect(scale['lb']?.ports).toContain(`127.0.0.1:${rlsPort}:${rlsPort}`);
  });
});

describe('docker/gateways/envoy-rls.yaml', () => {
  it('speaks HTTP/2 to Tollgate and keeps Envoy’s own X-RateLimit headers off (Tollgate sends them)', () => {
    const text = readFileSync(join(GATEWAYS, 'envoy-rls.yaml'), 'utf8');
    const config = parseAllDocuments(text)[0]!.toJS();
    expect(valuesOf(config, 'http2_protocol_options')).toHaveLength(1);
    expect(valuesOf(config, 'enable_x_ratelimit_headers')).toEqual(['OFF']);
  });
});
