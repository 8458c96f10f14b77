import { describe, expect, it } from 'vitest';
import { ALGORITHMS, readLimit, readLimitRows, readLimitShape, readWholeNumber, splitWindow, toWindowSeconds, usesBurst } from './limits';

const reader = (values: Record<string, string>) => (name: string) => values[name] ?? '';

describe('toWindowSeconds', () => {
  it.each([
    ['30', 'seconds', 30],
    ['1', 'minutes', 60],
    ['2', 'hours', 7_200],
    ['1', 'days', 86_400],
    [' 7 ', 'days', 604_800],
  ])('%s %s is %i s', (amount, unit, seconds) => {
    expect(toWindowSeconds(amount, unit)).toBe(seconds);
  });

  it.each([
    ['0', 'minutes'],
    ['', 'minutes'],
    ['-1', 'minutes'],
    ['1.5', 'hours'],
    ['1e3', 'seconds'],
    ['1', 'weeks'],
  ])('refuses %j %s', (amount, unit) => {
    expect(toWindowSeconds(amount, unit)).toBeUndefined();
  });
});

describe('splitWindow', () => {
  it.each([
    [1, 1, 'seconds'],
    [90, 90, 'seconds'],
    [60, 1, 'minutes'],
    [300, 5, 'minutes'],
    [3_600, 1, 'hours'],
    [7_200, 2, 'hours'],
    [86_400, 1, 'days'],
    [604_800, 7, 'days'],
  ])('%i s shows as %i %s', (windowS, amount, unit) => {
    expect(splitWindow(windowS)).toEqual({ amount, unit });
  });

  it('round-trips through toWindowSeconds', () => {
    for (const windowS of [1, 59, 60, 61, 3_599, 3_600, 5_400, 86_400, 31_622_400]) {
      const { amount, unit } = splitWindow(windowS);
      expect(toWindowSeconds(String(amount), unit)).toBe(windowS);
    }
  });
});

describe('readWholeNumber', () => {
  it('reads digits only', () => {
    expect(readWholeNumber(' 42 ')).toBe(42);
    expect(readWholeNumber('0')).toBe(0);
    expect(readWholeNumber('-3')).toBeUndefined();
    expect(readWholeNumber('2.0')).toBeUndefined();
    expect(readWholeNumber('')).toBeUndefined();
  });
});

describe('usesBurst', () => {
  it('is true for the bucket algorithms only', () => {
    expect(ALGORITHMS.filter(usesBurst)).toEqual(['token_bucket', 'leaky_bucket', 'leaky_bucket_shaper', 'gcra']);
  });
});

describe('readLimitShape', () => {
  it('drops the burst of an algorithm without a bucket', () => {
    const read = reader({ windowAmount: '2', windowUnit: 'hours', algorithm: 'sliding_window', burst: '50' });
    expect(readLimitShape(read)).toEqual({ windowS: 7_200, algorithm: 'sliding_window', burst: null });
  });

  it('keeps a bucket burst, and a blank one means the limit (null)', () => {
    expect(readLimitShape(reader({ windowAmount: '1', windowUnit: 'seconds', algorithm: 'token_bucket', burst: '20' }))).toEqual({
      windowS: 1,
      algorithm: 'token_bucket',
      burst: 20,
    });
    expect(readLimitShape(reader({ windowAmount: '1', windowUnit: 'seconds', algorithm: 'gcra', burst: ' ' }))).toMatchObject({ burst: null });
  });

  it('names the API field a bad value is about', () => {
    expect(readLimitShape(reader({ windowAmount: '0', windowUnit: 'minutes' }), 'limits.2.')).toMatchObject({ field: 'limits.2.windowS' });
    expect(readLimitShape(reader({ windowAmount: '367', windowUnit: 'days' }))).toMatchObject({ field: 'windowS', message: 'The longest window is 366 days.' });
    expect(readLimitShape(reader({ windowAmount: '366', windowUnit: 'days' }))).toMatchObject({ windowS: 31_622_400 });
    expect(readLimitShape(reader({ windowAmount: '1', windowUnit: 'minutes', algorithm: 'gcra', burst: '0' }))).toMatchObject({
      field: 'burst',
    });
    // Only the API's algorithms are sent (a posted form is anyone's text).
    expect(readLimitShape(reader({ windowAmount: '1', windowUnit: 'minutes', algorithm: 'constructor' }))).toEqual({
      field: 'algorithm',
      message: 'Choose one of the algorithms.',
    });
  });
});

describe('readLimit', () => {
  it('reads a whole limit, a fixed window unless chosen', () => {
    expect(readLimit(reader({ name: ' minute ', windowAmount: '1', windowUnit: 'minutes', limit: '3' }))).toEqual({
      name: 'minute',
      windowS: 60,
      limit: 3,
      algorithm: 'fixed_window',
      burst: null,
    });
  });

  it('refuses a missing name or count', () => {
    expect(readLimit(reader({ windowAmount: '1', windowUnit: 'minutes', limit: '3' }))).toMatchObject({ field: 'name' });
    expect(readLimit(reader({ name: 'minute', windowAmount: '1', windowUnit: 'minutes', limit: 'ten' }))).toMatchObject({ field: 'limit' });
  });
});

describe('readLimitRows', () => {
  const row = (i: number, name: string, limit: string) => ({
    [`limits.${i}.name`]: name,
    [`limits.${i}.windowAmount`]: '1',
    [`limits.${i}.windowUnit`]: 'minutes',
    [`limits.${i}.limit`]: limit,
    [`limits.${i}.algorithm`]: 'fixed_window',
  });

  it('reads the rows in order', () => {
    const values = { slug: 'gold', ...row(1, 'second', '5'), ...row(0, 'minute', '3') };
    expect(readLimitRows(reader(values), Object.keys(values))).toEqual([
      { name: 'minute', windowS: 60, limit: 3, algorithm: 'fixed_window', burst: null },
      { name: 'second', windowS: 60, limit: 5, algorithm: 'fixed_window', burst: null },
    ]);
  });

  it('names the row of the first bad field', () => {
    const values = { ...row(0, 'minute', '3'), ...row(1, 'hour', '') };
    expect(readLimitRows(reader(values), Object.keys(values))).toMatchObject({ field: 'limits.1.limit' });
  });

  it('wants at least one row', () => {
    expect(readLimitRows(reader({ slug: 'gold' }), ['slug'])).toMatchObject({ field: 'limits' });
  });
});
