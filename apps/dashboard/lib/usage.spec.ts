import { describe, expect, it } from 'vitest';
import { formatInZone, meterView, rangeLabel } from './usage';

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

describe('rangeLabel', () => {
  it('says a preset by its length and a custom range by its bounds', () => {
    expect(rangeLabel({ id: '7d', fromInput: '', toInput: '' })).toBe('last 7 d');
    expect(rangeLabel({ id: 'custom', fromInput: '2026-12-01T10:00', toInput: '2026-12-02T10:00' })).toBe('2026-12-01 10:00 – 2026-12-02 10:00 UTC');
  });
});
