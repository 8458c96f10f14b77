import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import type { RedisOptions } from 'ioredis';
import { createRedisClient } from './redis-client';
import { redisClusterNodesEnv, redisSentinelEnv, redisSentinelIssues, redisTargetOf } from './redis-env';

const schema = z.object({ REDIS_URL: z.string().default('redis://127.0.0.1:6379'), REDIS_CLUSTER_NODES: redisClusterNodesEnv, ...redisSentinelEnv }).superRefine(redisSentinelIssues);
/** Every problem as the apps report it at start-up: `KEY: message`. */
const problems = (env: Record<string, string>) => (schema.safeParse(env).error?.issues ?? []).map((i) => `${i.path.join('.')}: ${i.message}`);

describe('the Redis Sentinel settings', () => {
  it('read the sentinels like cluster seeds, the master name, their credentials and TLS', () => {
    const e = schema.parse({
      REDIS_URL: 'rediss://app:s%3Acret@ignored:6379/2',
      REDIS_SENTINELS: 'sentinel-1.internal:26379, 10.0.0.2:26379,[::1]:26380',
      REDIS_SENTINEL_MASTER: 'tollgate-primary',
      REDIS_SENTINEL_USERNAME: 'watcher',
      REDIS_SENTINEL_PASSWORD: 'pass word',
      REDIS_SENTINEL_TLS: 'true',
    });
    expect(redisTargetOf(e)).toEqual({
      url: 'rediss://app:s%3Acret@ignored:6379/2',
      clusterNodes: [],
      sentinel: {
        sentinels: [
          { host: 'sentinel-1.internal', port: 26379 },
          { host: '10.0.0.2', port: 26379 },
          { host: '::1', port: 26380 },
        ],
        master: 'tollgate-primary',
        username: 'watcher',
        password: 'pass word',
        tls: true,
      },
    });
    expect(redisTargetOf(schema.parse({})).sentinel).toBeNull();
  });

  it('give the client the sentinels, the master, the data nodes\' credentials, database and TLS, and the sentinels\' own', () => {
    const target = redisTargetOf(schema.parse({ REDIS_URL: 'rediss://app:s%3Acret@ignored:6379/2', REDIS_SENTINELS: '127.0.0.1:1', REDIS_SENTINEL_MASTER: 'm', REDIS_SENTINEL_PASSWORD: 'pw', REDIS_SENTINEL_TLS: 'true' }));
    const client = createRedisClient(target, { lazyConnect: true, commandTimeout: 500 });
    expect(client.options).toMatchObject({
      sentinels: [{ host: '127.0.0.1', port: 1 }],
      name: 'm',
      role: 'master',
      username: 'app',
      password: 's:cret',
      db: 2,
      tls: {},
      enableTLSForSentinelMode: true,
      sentinelPassword: 'pw',
      sentinelTLS: {},
      commandTimeout: 500,
    });
    // ioredis's failoverDetector can end a client that is reconnecting for good (redis-client.ts says how): off.
    expect((client.options as RedisOptions).failoverDetector).toBeFalsy();
    // A demoted primary's READONLY makes it ask the sentinels again, without resending the refused command.
    const { reconnectOnError } = client.options as RedisOptions;
    expect(reconnectOnError?.(new Error("READONLY You can't write against a read only replica."))).toBe(true);
    expect(reconnectOnError?.(new Error('NOSCRIPT No matching script'))).toBe(false);
    client.disconnect();
  });

  it.each([
    [{ REDIS_SENTINELS: '127.0.0.1:26379' }, 'REDIS_SENTINEL_MASTER: required with REDIS_SENTINELS'],
    [{ REDIS_SENTINELS: '127.0.0.1:26379', REDIS_SENTINEL_MASTER: 'm', REDIS_CLUSTER_NODES: '127.0.0.1:7000' }, 'REDIS_SENTINELS: a Redis Cluster (REDIS_CLUSTER_NODES) has no sentinels'],
    [{ REDIS_SENTINELS: 'sentinel-1', REDIS_SENTINEL_MASTER: 'm' }, 'REDIS_SENTINELS: REDIS_SENTINELS: "sentinel-1" is not host:port'],
    [{ REDIS_SENTINELS: '127.0.0.1:26379\r\n', REDIS_SENTINEL_MASTER: 'm' }, 'REDIS_SENTINELS: REDIS_SENTINELS holds a control character'],
    [{ REDIS_SENTINELS: '127.0.0.1:26379', REDIS_SENTINEL_MASTER: 'my master' }, 'REDIS_SENTINEL_MASTER: a master name: 1 to 256 printable characters without spaces'],
    [{ REDIS_SENTINELS: '127.0.0.1:26379', REDIS_SENTINEL_MASTER: 'm\n' }, 'REDIS_SENTINEL_MASTER: a master name'],
    [{ REDIS_SENTINELS: '127.0.0.1:26379', REDIS_SENTINEL_MASTER: 'm', REDIS_SENTINEL_PASSWORD: 'pw\u0000' }, 'REDIS_SENTINEL_PASSWORD: holds a control character'],
    [{ REDIS_SENTINELS: '127.0.0.1:26379', REDIS_SENTINEL_MASTER: 'm', REDIS_SENTINEL_TLS: 'yes' }, 'REDIS_SENTINEL_TLS:'],
    [{ REDIS_SENTINEL_MASTER: 'm' }, 'REDIS_SENTINEL_MASTER: only with REDIS_SENTINELS'],
    [{ REDIS_SENTINEL_TLS: 'true' }, 'REDIS_SENTINEL_TLS: only with REDIS_SENTINELS'],
  ])('refuses %j with a clear error', (env, problem) => {
    expect(problems(env).join('\n')).toContain(problem);
  });

  it('never echoes the sentinels\' password', () => {
    expect(problems({ REDIS_SENTINEL_PASSWORD: 'hunter2-secret' }).join('\n')).not.toContain('hunter2-secret');
  });
});
