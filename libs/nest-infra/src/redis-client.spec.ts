import { describe, expect, it } from 'vitest';
import { parseClusterNodes } from './redis-client';
import { redisClusterNodesEnv } from './redis-env';

describe('REDIS_CLUSTER_NODES', () => {
  it('reads comma-separated host:port seeds, IPv6 in brackets, and nothing when unset or empty', () => {
    expect(parseClusterNodes('127.0.0.1:7000, redis-1.internal:7001,[::1]:7002')).toEqual([
      { host: '127.0.0.1', port: 7000 },
      { host: 'redis-1.internal', port: 7001 },
      { host: '::1', port: 7002 },
    ]);
    expect(parseClusterNodes(undefined)).toEqual([]);
    expect(parseClusterNodes('  ')).toEqual([]);
  });

  it.each(['127.0.0.1', '127.0.0.1:', ':7000', 'host:0', 'host:65536', 'redis://host:7000', 'host:7000,', 'ho st:7000', 'host:7000\n'])('refuses %j', (value) => {
    expect(() => parseClusterNodes(value)).toThrow(/REDIS_CLUSTER_NODES/);
    expect(redisClusterNodesEnv.safeParse(value).success).toBe(false);
  });
});
