import { describe, expect, it } from 'vitest';
import { atLimitText, denyRateText, limitUseText, listWindow } from './list-traffic';

describe('what the lists say of traffic', () => {
  it('counts over the last 24 h up to the next whole minute', () => {
    expect(listWindow(new Date('2026-12-02T10:20:30Z'))).toEqual({ from: new Date('2026-12-01T10:21:00Z'), to: new Date('2026-12-02T10:21:00Z') });
  });

  it('says a 429 rate with its counts, and none without decisions', () => {
    expect(denyRateText({ decisions: 1_240, denied: 31, denyRate: 31 / 1_240 })).toEqual({ rate: '2.5 %', count: '31 of 1,240' });
    expect(denyRateText({ decisions: 4, denied: 0, denyRate: 0 })).toEqual({ rate: '0 %', count: '0 of 4' });
    expect(denyRateText({ decisions: 0, denied: 0, denyRate: null })).toEqual({ rate: '—', count: '' });
  });

  it("says a tenant's most used limit in whole percent, or why there is none", () => {
    const mostUsed = { name: 'minute', limit: 600, used: 479, remaining: 121, resetsAt: null, share: 479 / 600 };
    expect(limitUseText({ tenantId: 't', limits: 2, mostUsed }, true)).toBe('80 % of minute');
    expect(limitUseText({ tenantId: 't', limits: 0, mostUsed: null }, true)).toBe('no limits of its own');
    expect(limitUseText(undefined, false)).toBe('unavailable: the limiter did not answer');
  });

  it("says how many of a plan's tenants are at a limit, and of how many read", () => {
    expect(atLimitText({ planId: 'p', tenants: 3, checked: 3, atLimit: 1 }, true)).toBe('1 at a limit now');
    expect(atLimitText({ planId: 'p', tenants: 3, checked: 3, atLimit: 0 }, true)).toBe('none at a limit now');
    expect(atLimitText({ planId: 'p', tenants: 5_000, checked: 1_000, atLimit: 12 }, true)).toBe('12 of the first 1,000 at a limit now');
    expect(atLimitText(undefined, false)).toBe('limit state unavailable');
  });
});
