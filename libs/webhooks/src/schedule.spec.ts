import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, MAX_RETRY_AFTER_MS, nextDelayMs, parseRetryAfter, RETRY_DELAYS_MS } from './schedule';

describe('the retry schedule', () => {
  it('is at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h: 8 attempts', () => {
    expect(RETRY_DELAYS_MS).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(MAX_ATTEMPTS).toBe(8);
    expect(nextDelayMs(8, null)).toBeNull();
  });

  it('jitters each delay by at most ±20 %', () => {
    expect(nextDelayMs(1, null, () => 0)).toBe(4_000);
    expect(nextDelayMs(1, null, () => 0.5)).toBe(5_000);
    expect(nextDelayMs(1, null, () => 1)).toBe(6_000);
    expect(nextDelayMs(7, null, () => 0)).toBe(28_800_000);
  });

  it('waits at least as long as Retry-After says, at most 24 h', () => {
    expect(nextDelayMs(1, 60_000, () => 0.5)).toBe(60_000);
    expect(nextDelayMs(1, 1_000, () => 0.5)).toBe(5_000);
    expect(nextDelayMs(1, 10 * MAX_RETRY_AFTER_MS, () => 0.5)).toBe(MAX_RETRY_AFTER_MS);
    expect(nextDelayMs(8, 60_000)).toBeNull();
  });
});

describe('Retry-After', () => {
  const now = new Date('2026-12-02T06:00:00Z');
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Wed, 02 Dec 2026 07:00:00 GMT', now)).toBe(3_600_000);
    expect(parseRetryAfter('Wed, 02 Dec 2026 05:00:00 GMT', now)).toBe(0);
  });

  it('ignores what it cannot read', () => {
    for (const value of [undefined, '', '-5', '1.5', 'soon', '12345678901', '2026-12-02T07:00:00Z']) expect(parseRetryAfter(value, now)).toBeNull();
  });
});
