import { ConfigError } from '@tollgate/domain';
import { describe, expect, it } from 'vitest';
import { loadApiConfig } from './config';

describe('the API configuration of Redis', () => {
  it('is one server by default, a cluster with REDIS_CLUSTER_NODES, the primary the sentinels name with REDIS_SENTINELS', () => {
    expect(loadApiConfig({}).redis).toEqual({ url: 'redis://127.0.0.1:6379', clusterNodes: [], sentinel: null, commandTimeoutMs: 500 });
    expect(loadApiConfig({ REDIS_CLUSTER_NODES: '127.0.0.1:7000' }).redis).toMatchObject({ clusterNodes: [{ host: '127.0.0.1', port: 7000 }], sentinel: null });
    expect(loadApiConfig({ REDIS_URL: 'rediss://:pw@primary:6379', REDIS_SENTINELS: 'sentinel-1:26379', REDIS_SENTINEL_MASTER: 'tollgate', REDIS_SENTINEL_TLS: 'true' }).redis).toEqual({
      url: 'rediss://:pw@primary:6379',
      clusterNodes: [],
      sentinel: { sentinels: [{ host: 'sentinel-1', port: 26379 }], master: 'tollgate', username: null, password: null, tls: true },
      commandTimeoutMs: 500,
    });
  });

  it('refuses sentinels without a master name, beside a cluster, or a master name without sentinels, naming each key', () => {
    const refusal = (env: Record<string, string>) => {
      try {
        loadApiConfig(env);
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refusal({ REDIS_SENTINELS: '127.0.0.1:26379' })).toContain('REDIS_SENTINEL_MASTER: required with REDIS_SENTINELS');
    expect(refusal({ REDIS_SENTINELS: '127.0.0.1:26379', REDIS_SENTINEL_MASTER: 'm', REDIS_CLUSTER_NODES: '127.0.0.1:7000' })).toContain('REDIS_SENTINELS: a Redis Cluster (REDIS_CLUSTER_NODES) has no sentinels');
    expect(refusal({ REDIS_SENTINEL_MASTER: 'm', REDIS_SENTINEL_USERNAME: 'u' })).toMatch(/REDIS_SENTINEL_MASTER: only with REDIS_SENTINELS[\s\S]*REDIS_SENTINEL_USERNAME: only with REDIS_SENTINELS/);
    expect(refusal({ REDIS_SENTINELS: 'sentinel-1:26379\u0007', REDIS_SENTINEL_MASTER: 'm' })).toContain('REDIS_SENTINELS: REDIS_SENTINELS holds a control character');
  });
});
