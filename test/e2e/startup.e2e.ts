import { describe, expect, it } from 'vitest';
import { runNode } from '../support/stack';

describe('start-up configuration', () => {
  it.each([
    [
      'api',
      'apps/api/dist/main.js',
      { API_PORT: 'not-a-port', REDIS_URL: 'http://wrong', LOG_LEVEL: 'loud', METRICS_TOKEN: 'short', METRICS_PORT: 'x', FORWARD_AUTH_ORIGINAL: 'first-present', LOG_FORMAT: 'fancy', REDIS_SENTINELS: 'sentinel-1' },
      ['API_PORT', 'REDIS_URL', 'LOG_LEVEL', 'METRICS_TOKEN', 'METRICS_PORT', 'FORWARD_AUTH_ORIGINAL', 'LOG_FORMAT', 'REDIS_SENTINELS'],
    ],
    ['worker', 'apps/worker/dist/main.js', { DATABASE_URL: 'mysql://x', QUEUE_PREFIX: 'no spaces', REDIS_URL: 'http://wrong', LOG_FORMAT: 'fancy', REDIS_SENTINEL_TLS: 'yes' }, ['DATABASE_URL', 'QUEUE_PREFIX', 'REDIS_URL', 'LOG_FORMAT', 'REDIS_SENTINEL_TLS']],
    ['dashboard', 'apps/dashboard/server.mts', { DASHBOARD_PORT: 'x', DASHBOARD_TRUST_PROXY: 'all', CLIENT_ADDRESS_SECRET: 'too-short' }, ['DASHBOARD_PORT', 'DASHBOARD_TRUST_PROXY', 'CLIENT_ADDRESS_SECRET']],
    ['dashboard (production, no secret)', 'apps/dashboard/server.mts', { NODE_ENV: 'production', CLIENT_ADDRESS_SECRET: '' }, ['CLIENT_ADDRESS_SECRET']],
  ])('the %s refuses to start on bad values and names every bad key', async (_app, entry, env, keys) => {
    const error = await runNode([entry], env).then(
      () => null,
      (err: Error & { code: number }) => err,
    );
    expect(error).not.toBeNull();
    expect(error!.code).toBe(1);
    for (const key of keys) expect(error!.message).toContain(`${key}:`);
  });
});
