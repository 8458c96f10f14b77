import { describe, expect, it } from 'vitest';
import { retryAfterMs } from './retry-after';

describe('retryAfterMs', () => {
  const now = Date.parse('2026-11-30T12:00:00Z');
  it('reads delay-seconds and HTTP-dates, never negative', () => {
    expect(retryAfterMs('21', now)).toBe(21_000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs(1.5, now)).toBe(1_500);
    expect(retryAfterMs('Mon, 30 Nov 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Mon, 30 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs(new Date(now + 5_000), now)).toBe(5_000);
  });
  it('is undefined when absent or unreadable', () => {
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs('-5', now)).toBeUndefined();
    expect(retryAfterMs(Number.NaN, now)).toBeUndefined();
  });
});
