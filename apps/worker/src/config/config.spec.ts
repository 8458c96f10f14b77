import { ConfigError } from '@tollgate/domain';
import { describe, expect, it } from 'vitest';
import { loadWorkerConfig } from './config';

describe('the worker configuration', () => {
  it('rolls up usage every 10 s after a 15 s grace and keeps minutes 7 days, hours 90 and days 400 by default', () => {
    expect(loadWorkerConfig({}).usage).toEqual({
      rollupEveryMs: 10_000,
      graceS: 15,
      retention: { minuteDays: 7, hourDays: 90, dayDays: 400 },
    });
  });

  it('refuses to keep minutes or hours for less time than a usage hash can wait to be rolled up, naming each key', () => {
    let error: unknown = null;
    try {
      loadWorkerConfig({ USAGE_RETENTION_MINUTE_DAYS: '2', USAGE_RETENTION_HOUR_DAYS: '1', USAGE_ROLLUP_EVERY_MS: 'often', USAGE_GRACE_S: '-1' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    for (const key of ['USAGE_RETENTION_MINUTE_DAYS', 'USAGE_RETENTION_HOUR_DAYS', 'USAGE_ROLLUP_EVERY_MS', 'USAGE_GRACE_S']) {
      expect((error as Error).message).toContain(`${key}:`);
    }
  });

  it('evaluates alerts every 15 s and keeps resolved ones 90 days by default, and refuses an interval past the 60 s lag', () => {
    expect(loadWorkerConfig({}).alerts).toEqual({ evaluateEveryMs: 15_000, retentionDays: 90 });
    expect(() => loadWorkerConfig({ ALERTS_EVALUATE_EVERY_MS: '120000' })).toThrow(/ALERTS_EVALUATE_EVERY_MS:/);
    expect(() => loadWorkerConfig({ ALERTS_RETENTION_DAYS: '0' })).toThrow(/ALERTS_RETENTION_DAYS:/);
  });
});
