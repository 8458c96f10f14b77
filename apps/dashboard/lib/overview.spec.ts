import { describe, expect, it } from 'vitest';
import { formatChange, formatRateChange, namesRange, parseMinVolume, parseRange, previousRange, rangeForTraffic, rangeQuery, ruleSetMarkers, totalsOf, trafficProbe } from './overview';

const now = new Date('2026-12-02T10:20:30Z');

describe('parseRange', () => {
  it('reads a preset ending at the next whole minute, and defaults to 24 h', () => {
    const hour = parseRange({ range: '1h' }, now);
    expect(hour).toMatchObject({ id: '1h', live: true, from: new Date('2026-12-02T09:21:00Z'), to: new Date('2026-12-02T10:21:00Z') });
    expect(parseRange({}, now)).toMatchObject({ id: '24h', live: true });
    expect(parseRange({ range: '30d' }, now).from).toEqual(new Date('2026-11-02T10:21:00Z'));
  });

  it('reads a custom range in UTC from the inputs', () => {
    const range = parseRange({ from: '2026-11-30T08:00', to: '2026-12-01T08:30' }, now);
    expect(range).toMatchObject({ id: 'custom', live: false, fromInput: '2026-11-30T08:00', toInput: '2026-12-01T08:30' });
    expect(range.from).toEqual(new Date('2026-11-30T08:00:00Z'));
    expect(rangeQuery(range).toString()).toBe('from=2026-11-30T08%3A00&to=2026-12-01T08%3A30');
  });

  it('reads ISO 8601 times with their offset, as a script or a link from elsewhere writes them', () => {
    const range = parseRange({ from: '2026-12-04T23:40:00Z', to: '2026-12-05T01:10:30.500+01:00' }, new Date('2026-12-06T00:00:00Z'));
    expect(range).toMatchObject({ id: 'custom', from: new Date('2026-12-04T23:40:00Z'), to: new Date('2026-12-05T00:10:30.500Z'), fromInput: '2026-12-04T23:40' });
    expect(parseRange({ from: '2026-12-04T18:40-05:00' }, new Date('2026-12-05T10:00:00Z')).from).toEqual(new Date('2026-12-04T23:40:00Z'));
  });

  it.each([
    [{ range: '2w' }, /not one of/],
    [{ range: ['1h', '24h'] }, /not one of/],
    [{ from: 'yesterday', to: '2026-12-01T08:30' }, /start of the range is not a time/],
    [{ from: '2026-02-31T08:00', to: '2026-03-05T08:30' }, /start of the range is not a time/],
    [{ from: '2026-11-30T08:00', to: '2026-11-30T08:00+15:00' }, /end of the range is not a time/],
    [{ from: '2026-11-30T08:00', to: '2026-11-30T08:00:61Z' }, /end of the range is not a time/],
    [{ from: '2026-11-30 08:00Z', to: '2026-12-01T08:00' }, /start of the range is not a time/],
    [{ from: '2026-12-01T08:00', to: '2026-11-30T08:00' }, /before its end/],
    [{ from: '2024-01-01T00:00', to: '2026-12-01T00:00' }, /400 days/],
    [{ from: '2026-11-30T08:00\u0000', to: '2026-12-01T08:00' }, /not a time/],
  ])('refuses %j with a message and shows the last 24 hours', (params, problem) => {
    const range = parseRange(params, now);
    expect(range.id).toBe('24h');
    expect(range.problem).toMatch(problem);
  });
});

describe('rangeForTraffic', () => {
  /** The probe's minutes, with decisions in those `busy` says (minutes from its start). */
  const probe = (busy: (minute: number) => boolean) => {
    const { from } = trafficProbe(now);
    return {
      points: Array.from({ length: 360 }, (_, i) => ({ at: new Date(from.getTime() + i * 60_000).toISOString(), allowed: busy(i) ? 3 : 0, denied: 0, shadowDenied: 0, degraded: 0, refused: 0, cost: 0 })),
    };
  };

  it('opens on the hour when all of the traffic is in the last hour: a fresh install with 10 minutes of it', () => {
    expect(rangeForTraffic(probe((m) => m >= 350), now)).toBe('1h');
    expect(rangeForTraffic(probe((m) => m === 300), now)).toBe('1h');
  });

  it('opens on 6 h when the traffic began within them, and on the default when before them or never', () => {
    expect(rangeForTraffic(probe((m) => m === 299), now)).toBe('6h');
    expect(rangeForTraffic(probe((m) => m >= 1), now)).toBe('6h');
    expect(rangeForTraffic(probe((m) => m >= 0), now)).toBe('24h');
    expect(rangeForTraffic(probe(() => false), now)).toBe('24h');
  });

  it('is only asked when the URL names no range, and parseRange opens on it then', () => {
    expect(namesRange({})).toBe(false);
    expect(namesRange({ range: '7d' })).toBe(true);
    expect(namesRange({ from: 'nonsense' })).toBe(true);
    expect(parseRange({}, now, '1h')).toMatchObject({ id: '1h', live: true });
    expect(parseRange({ range: '24h' }, now, '1h').id).toBe('24h');
    expect(parseRange({ range: 'nonsense' }, now, '1h').id).toBe('24h');
  });
});

describe('previousRange', () => {
  it('is the range of the same length just before', () => {
    const range = parseRange({ range: '24h' }, now);
    expect(previousRange(range)).toEqual({ from: new Date('2026-11-30T10:21:00Z'), to: range.from });
  });
});

describe('totalsOf', () => {
  it('sums the points: every result is a decision, the would-denies were admitted', () => {
    const point = (allowed: number, denied: number, shadowDenied = 0, degraded = 0) => ({ at: '', allowed, denied, shadowDenied, degraded, refused: 9, cost: 0 });
    expect(totalsOf({ points: [point(10, 5, 3, 2), point(20, 0)] })).toEqual({ decisions: 40, allowed: 33, denied: 5, denyRate: 5 / 40, shadowDenied: 3, degraded: 2, refused: 18 });
    expect(totalsOf({ points: [] }).denyRate).toBeNull();
  });
});

describe('formatChange and formatRateChange', () => {
  it('says how a count changed against the range before', () => {
    expect(formatChange(120, 100)).toBe('+20 %');
    expect(formatChange(95, 100)).toBe('−5 %');
    expect(formatChange(5, 0)).toBe('new');
    expect(formatChange(0, 0)).toBe('no change');
    expect(formatChange(100_001, 100_000)).toBe('+< 0.1 %');
  });

  it('says how a rate changed, in percentage points', () => {
    expect(formatRateChange(0.25, 0.2)).toBe('+5 pp');
    expect(formatRateChange(0.1, 0.125)).toBe('−2.5 pp');
    expect(formatRateChange(0.1, null)).toBe('new');
    expect(formatRateChange(null, 0.1)).toBe('—');
  });
});

describe('parseMinVolume', () => {
  it('takes one of the offered volumes, else 10', () => {
    expect(parseMinVolume({ min: '100' })).toBe(100);
    expect(parseMinVolume({ min: '7' })).toBe(10);
    expect(parseMinVolume({})).toBe(10);
  });
});

describe('ruleSetMarkers', () => {
  it('labels each version short and says who published it', () => {
    expect(ruleSetMarkers([{ version: 7, createdAt: '2026-12-02T10:00:00Z', author: 'ops@example.com' }])).toEqual([
      { at: '2026-12-02T10:00:00Z', label: 'v7', description: 'Rule set v7 published by ops@example.com' },
    ]);
  });
});
