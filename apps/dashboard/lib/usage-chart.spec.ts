import { describe, expect, it } from 'vitest';
import { axisTicks, bucketLabel, bucketTitle, denyRateOf, formatRate, markersInRange, rateAxisMax } from './usage-chart';

const minutes = (count: number, start = '2026-12-01T10:00:00Z') =>
  Array.from({ length: count }, (_, i) => ({ at: new Date(Date.parse(start) + i * 60_000).toISOString() }));

describe('denyRateOf', () => {
  it('is the share of decisions that were denied, and nothing when there were none', () => {
    expect(denyRateOf({ allowed: 3, denied: 1, shadowDenied: 0, degraded: 0 })).toBe(0.25);
    // Shadow would-denies and degraded decisions are decisions too.
    expect(denyRateOf({ allowed: 1, denied: 1, shadowDenied: 1, degraded: 1 })).toBe(0.25);
    expect(denyRateOf({ allowed: 0, denied: 0, shadowDenied: 0, degraded: 0 })).toBeNull();
  });
});

describe('formatRate', () => {
  it('says small rates honestly and rounds the rest', () => {
    expect(formatRate(null)).toBe('—');
    expect(formatRate(0)).toBe('0 %');
    expect(formatRate(0.0004)).toBe('< 0.1 %');
    expect(formatRate(0.0512)).toBe('5.1 %');
    expect(formatRate(0.5)).toBe('50 %');
  });
});

describe('axisTicks', () => {
  it('labels round times, fewer on a narrow chart', () => {
    const points = minutes(60);
    expect(axisTicks(points, 'minute', 1200)).toHaveLength(12);
    const narrow = axisTicks(points, 'minute', 300);
    expect(narrow).toEqual(['2026-12-01T10:00:00.000Z', '2026-12-01T10:30:00.000Z']);
  });

  it('takes every n-th day of a tenant’s calendar days, which need not start at midnight UTC', () => {
    const days = Array.from({ length: 30 }, (_, i) => ({ at: new Date(Date.parse('2026-11-01T05:00:00Z') + i * 86_400_000).toISOString() }));
    const ticks = axisTicks(days, 'day', 300);
    expect(ticks[0]).toBe(days[0]!.at);
    expect(ticks.length).toBeLessThanOrEqual(3);
  });

  it('has nothing to label without points or room', () => {
    expect(axisTicks([], 'hour', 800)).toEqual([]);
    expect(axisTicks(minutes(5), 'minute', 0)).toEqual([]);
  });
});

describe('bucketLabel and bucketTitle', () => {
  it("reads a bucket's start in the series' zone", () => {
    expect(bucketLabel('2026-12-01T10:05:00Z', 'minute', 'UTC')).toBe('10:05');
    expect(bucketLabel('2026-12-01T23:00:00Z', 'day', 'Europe/Berlin')).toBe('Dec 2');
    expect(bucketTitle('2026-12-01T10:00:00Z', 'hour', 'UTC')).toBe('Dec 1, 10:00 UTC');
  });

  it('falls back to UTC for a zone it does not know', () => {
    expect(bucketLabel('2026-12-01T10:05:00Z', 'minute', 'Not/AZone')).toBe('10:05');
  });
});

describe('rateAxisMax', () => {
  it('rounds the highest rate up to a stop, at least 5 %', () => {
    const p = (allowed: number, denied: number) => ({ allowed, denied, shadowDenied: 0, degraded: 0 });
    expect(rateAxisMax([p(100, 0)])).toBe(0.05);
    expect(rateAxisMax([p(70, 30)])).toBe(0.5);
    expect(rateAxisMax([p(0, 10)])).toBe(1);
  });
});

describe('markersInRange', () => {
  it('keeps the markers inside the range, oldest first', () => {
    const markers = [
      { at: '2026-12-01T10:40:00Z', label: 'v3' },
      { at: '2026-12-01T09:00:00Z', label: 'v1' },
      { at: '2026-12-01T10:10:00Z', label: 'v2' },
      { at: 'not a time', label: 'v0' },
    ];
    expect(markersInRange(markers, '2026-12-01T10:00:00Z', '2026-12-01T11:00:00Z').map((m) => m.label)).toEqual(['v2', 'v3']);
  });
});
