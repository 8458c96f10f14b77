import { describe, expect, it } from 'vitest';
import { formatAlgorithm, formatJsonValue, formatPeriod, formatRate, formatRelativeTime, formatWait, formatWindow, safeReturnPath } from './format';

describe('formatWindow', () => {
  it.each([
    [1, 'per second'],
    [60, 'per minute'],
    [3_600, 'per hour'],
    [86_400, 'per day'],
    [604_800, 'per week'],
    [90, 'per 90 seconds'],
    [7_200, 'per 2 hours'],
    [2_592_000, 'per 30 days'],
  ])('%i s reads %s', (windowS, expected) => {
    expect(formatWindow(windowS)).toBe(expected);
  });
});

describe('formatRate', () => {
  it('says the count with thousands separators, then the window', () => {
    expect(formatRate({ limit: 1000, windowS: 86_400 })).toBe('1,000 per day');
    expect(formatRate({ limit: 3, windowS: 7_200 })).toBe('3 per 2 hours');
  });
  it('says a calendar limit follows the calendar, wherever its period is shown', () => {
    expect(formatRate({ limit: 1000, windowS: 86_400, calendar: 'day' })).toBe('1,000 per calendar day');
    expect(formatPeriod({ windowS: 2_678_400, calendar: 'month' })).toBe('per calendar month');
    expect(formatPeriod({ windowS: 86_400, calendar: null })).toBe('per day');
  });
});

describe('formatAlgorithm', () => {
  it('turns a snake_case id into words', () => {
    expect(formatAlgorithm('fixed_window')).toBe('Fixed window');
  });

  it('keeps an acronym in capitals', () => {
    expect(formatAlgorithm('gcra')).toBe('GCRA');
  });
});

describe('safeReturnPath', () => {
  it('keeps same-site paths', () => {
    expect(safeReturnPath('/tenants?after=x')).toBe('/tenants?after=x');
  });

  it.each(['//evil.example', '/\\evil.example', 'https://evil.example', '', undefined])('rejects %s', (value) => {
    expect(safeReturnPath(value)).toBeUndefined();
  });
});

describe('formatRelativeTime', () => {
  const now = Date.parse('2026-06-15T12:00:00Z');
  it.each([
    ['2026-06-15T11:59:30Z', 'just now'],
    ['2026-06-15T11:59:10Z', '1 minute ago'],
    ['2026-06-15T11:55:00Z', '5 minutes ago'],
    ['2026-06-15T09:00:00Z', '3 hours ago'],
    ['2026-06-14T12:00:00Z', 'yesterday'],
    ['2026-06-11T12:00:00Z', '4 days ago'],
    ['2026-05-25T12:00:00Z', '3 weeks ago'],
    ['2025-06-15T12:00:00Z', 'last year'],
  ])('%s reads %s', (iso, expected) => {
    expect(formatRelativeTime(iso, now)).toBe(expected);
  });

  it('keeps what it cannot read as it is', () => {
    expect(formatRelativeTime('yesterday-ish', now)).toBe('yesterday-ish');
  });
});

describe('formatJsonValue', () => {
  it.each([
    [12, '12'],
    ['acme', '"acme"'],
    [null, 'null'],
    [false, 'false'],
    [{ name: 'minute', limit: 60 }, '{"name":"minute","limit":60}'],
    [undefined, '—'],
  ])('%j reads %s', (value, expected) => {
    expect(formatJsonValue(value)).toBe(expected);
  });

  it('indents objects too long for one line', () => {
    const value = { id: 'c0ffee00-0000-4000-8000-000000000001', slug: 'acme', status: 'active', plan: 'starter' };
    expect(formatJsonValue(value)).toBe(JSON.stringify(value, null, 2));
    expect(formatJsonValue(value).split('\n').length).toBeGreaterThan(1);
  });
});

describe('formatWait', () => {
  it.each([
    [0.2, '1 second'],
    [1, '1 second'],
    [42, '42 seconds'],
    [60, '1 minute'],
    [61, '2 minutes'],
    [3_600, '1 hour'],
    [3_900, '1 hour 5 minutes'],
  ])('%d s reads %s', (seconds, expected) => {
    expect(formatWait(seconds)).toBe(expected);
  });
});
