import { describe, expect, it } from 'vitest';
import { formatInZone, meterView, parseRange, rangeBounds, rangeHref, usageTotals } from './usage';

describe('the range in the URL', () => {
  it('reads one of the offered ranges, and the default for anything else', () => {
    expect(parseRange({ range: '7d' })).toBe('7d');
    expect(parseRange({ range: '30d' })).toBe('30d');
    expect(parseRange({})).toBe('24h');
    expect(parseRange({ range: '1y' })).toBe('24h');
    expect(parseRange({ range: ['7d', '30d'] })).toBe('24h');
    expect(parseRange({ range: 'constructor' })).toBe('24h');
  });

  it('ends now and starts the range before', () => {
    const now = Date.parse('2026-12-02T10:00:00Z');
    expect(rangeBounds('24h', now)).toEqual({ from: new Date('2026-12-01T10:00:00Z'), to: new Date(now) });
    expect(rangeBounds('30d', now).from).toEqual(new Date('2026-11-02T10:00:00Z'));
  });

  it('leaves the default out of links', () => {
    expect(rangeHref('/portal/usage', '24h')).toBe('/portal/usage');
    expect(rangeHref('/tenants/abc', '7d')).toBe('/tenants/abc?range=7d');
  });
});

describe('formatInZone', () => {
  const iso = '2026-12-02T10:05:00Z';
  it("shows the tenant's clock", () => {
    expect(formatInZone(iso, 'UTC')).toBe('2 Dec, 10:05');
    expect(formatInZone(iso, 'Asia/Kolkata')).toBe('2 Dec, 15:35');
    expect(formatInZone(iso, 'America/Chicago')).toBe('2 Dec, 04:05');
    expect(formatInZone('2026-12-02T10:05:07Z', 'UTC', true)).toBe('2 Dec, 10:05:07');
  });

  it('falls back to UTC for a zone it does not know, and leaves what is not a time as it is', () => {
    expect(formatInZone(iso, 'Mars/Olympus')).toBe('2 Dec, 10:05');
    expect(formatInZone('soon', 'UTC')).toBe('soon');
  });
});

describe('meterView', () => {
  it('fills the bar by what is used, and says it in words', () => {
    expect(meterView({ used: 3, limit: 10, remaining: 7 })).toEqual({ percent: 30, tone: 'ok', text: '3 of 10 used' });
    expect(meterView({ used: 1500, limit: 2000, remaining: 500 })).toEqual({ percent: 75, tone: 'warn', text: '1,500 of 2,000 used' });
  });

  it('is full when nothing remains, and never past its end', () => {
    expect(meterView({ used: 10, limit: 10, remaining: 0 })).toMatchObject({ percent: 100, tone: 'full' });
    expect(meterView({ used: 12, limit: 10, remaining: 0 }).percent).toBe(100);
    expect(meterView({ used: 0, limit: 0, remaining: 0 })).toMatchObject({ percent: 100, tone: 'full' });
  });
});

describe('usageTotals', () => {
  it('sums every result of every point', () => {
    const point = (allowed: number, denied: number) => ({ at: '', allowed, denied, shadowDenied: 1, degraded: 0, refused: 2, cost: allowed * 2 });
    expect(usageTotals([point(5, 1), point(3, 0)])).toEqual({ checks: 15, allowed: 8, denied: 1, shadowDenied: 2, degraded: 0, refused: 4, cost: 16 });
    expect(usageTotals([]).checks).toBe(0);
  });
});
