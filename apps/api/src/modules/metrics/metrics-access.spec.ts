import { AppError, ConfigError } from '@tollgate/domain';
import { describe, expect, it } from 'vitest';
import { loadApiConfig } from '../../config/config';
import { MetricsAccess } from './metrics-access';

const TOKEN = 'a-scrape-token-of-some-length';
const access = (env: Record<string, string>) => new MetricsAccess(loadApiConfig(env).metrics);
const scrape = (authorization?: string) => ({ headers: authorization === undefined ? {} : { authorization } });

function refusal(run: () => void): { code: string; status: number } | null {
  try {
    run();
    return null;
  } catch (err) {
    if (err instanceof AppError) return { code: err.code, status: err.status };
    throw err;
  }
}

describe('MetricsAccess: who may read /metrics', () => {
  it('on the API port with METRICS_TOKEN: only the token, as a bearer token', () => {
    const a = access({ METRICS_TOKEN: TOKEN });
    expect(refusal(() => a.authorize(scrape(`Bearer ${TOKEN}`), false))).toBeNull();
    expect(refusal(() => a.authorize(scrape(), false))).toEqual({ code: 'unauthenticated', status: 401 });
    expect(refusal(() => a.authorize(scrape(`Bearer ${TOKEN}x`), false))).toEqual({ code: 'unauthenticated', status: 401 });
    expect(refusal(() => a.authorize(scrape(`Bearer ${TOKEN.slice(1)}`), false))).toEqual({ code: 'unauthenticated', status: 401 });
    expect(refusal(() => a.authorize(scrape(TOKEN), false))).toEqual({ code: 'unauthenticated', status: 401 });
  });

  it('on the API port without METRICS_TOKEN, or with METRICS_PORT: not served (404)', () => {
    expect(refusal(() => access({}).authorize(scrape(), false))).toEqual({ code: 'not_found', status: 404 });
    expect(refusal(() => access({ METRICS_PORT: '9464', METRICS_TOKEN: TOKEN }).authorize(scrape(`Bearer ${TOKEN}`), false))).toEqual({ code: 'not_found', status: 404 });
  });

  it('on its own listener: open without METRICS_TOKEN, the token with it', () => {
    expect(refusal(() => access({ METRICS_PORT: '9464' }).authorize(scrape(), true))).toBeNull();
    const a = access({ METRICS_PORT: '9464', METRICS_TOKEN: TOKEN });
    expect(refusal(() => a.authorize(scrape(), true))).toEqual({ code: 'unauthenticated', status: 401 });
    expect(refusal(() => a.authorize(scrape(`Bearer ${TOKEN}`), true))).toBeNull();
  });
});

describe('metrics configuration', () => {
  it('defaults: no token, no listener of its own, tenant label on', () => {
    expect(loadApiConfig({}).metrics).toEqual({ token: null, listener: null, tenantLabel: true });
    expect(loadApiConfig({ METRICS_PORT: '9464', METRICS_TENANT_LABEL: 'false' }).metrics).toEqual({ token: null, listener: { host: '127.0.0.1', port: 9464 }, tenantLabel: false });
  });

  it('names every bad key', () => {
    let error: unknown;
    try {
      loadApiConfig({ METRICS_TOKEN: 'short', METRICS_PORT: 'ninety', METRICS_TENANT_LABEL: 'yes' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const key of ['METRICS_TOKEN', 'METRICS_PORT', 'METRICS_TENANT_LABEL']) expect(problems).toContain(key);
    // The message never repeats the token.
    expect(problems).not.toContain('short');
  });
});
