import { describe, expect, it } from 'vitest';
import { toLimitRule } from './limit-rules';

describe('toLimitRule', () => {
  const daily = { name: 'daily', windowS: 86_400, limit: 1000, algorithm: 'fixed_window' as const, calendar: 'day' as const };

  it('makes a daily fixed window reset at midnight in the tenant\'s time zone', () => {
    expect(toLimitRule(daily, 'America/New_York')).toEqual({ name: 'daily', algorithm: 'fixed_window', limit: 1000, windowMs: 0, calendar: { unit: 'day', timeZone: 'America/New_York' } });
  });

  it('keeps the epoch-aligned day in UTC (the same midnight), and every other window as it is', () => {
    expect(toLimitRule(daily)).toEqual({ name: 'daily', algorithm: 'fixed_window', limit: 1000, windowMs: 86_400_000 });
    expect(toLimitRule({ ...daily, windowS: 3600, calendar: undefined }, 'Asia/Tokyo')).toMatchObject({ windowMs: 3_600_000 });
    expect(toLimitRule({ ...daily, algorithm: 'token_bucket', burst: 50, calendar: undefined }, 'Asia/Tokyo')).toEqual({ name: 'daily', algorithm: 'token_bucket', limit: 1000, windowMs: 86_400_000, burst: 50 });
  });

  it('runs a day of 86,400 s without a calendar as a 24-hour window, and a calendar month in the tenant\'s time zone', () => {
    expect(toLimitRule({ ...daily, calendar: undefined }, 'America/New_York')).toEqual({ name: 'daily', algorithm: 'fixed_window', limit: 1000, windowMs: 86_400_000 });
    expect(toLimitRule({ ...daily, windowS: 31 * 86_400, calendar: 'month' }, 'UTC')).toEqual({ name: 'daily', algorithm: 'fixed_window', limit: 1000, windowMs: 0, calendar: { unit: 'month', timeZone: 'UTC' } });
  });
});
