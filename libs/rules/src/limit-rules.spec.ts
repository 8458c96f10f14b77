import { describe, expect, it } from 'vitest';
import { toLimitRule } from './limit-rules';

describe('toLimitRule', () => {
  const daily = { name: 'daily', windowS: 86_400, limit: 1000, algorithm: 'fixed_window' as const };

  it('makes a daily fixed window reset at midnight in the tenant\'s time zone', () => {
    expect(toLimitRule(daily, 'America/New_York')).toEqual({ name: 'daily', algorithm: 'fixed_window', limit: 1000, windowMs: 0, calendar: { unit: 'day', timeZone: 'America/New_York' } });
  });

  it('keeps the epoch-aligned day in UTC (the same midnight), and every other window as it is', () => {
    expect(toLimitRule(daily)).toEqual({ name: 'daily', algorithm: 'fixed_window', limit: 1000, windowMs: 86_400_000 });
    expect(toLimitRule({ ...daily, windowS: 3600 }, 'Asia/Tokyo')).toMatchObject({ windowMs: 3_600_000 });
    expect(toLimitRule({ ...daily, algorithm: 'token_bucket', burst: 50 }, 'Asia/Tokyo')).toEqual({ name: 'daily', algorithm: 'token_bucket', limit: 1000, windowMs: 86_400_000, burst: 50 });
  });
});
