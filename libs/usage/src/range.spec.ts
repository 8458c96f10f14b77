import { describe, expect, it } from 'vitest';
import { chooseStep, pointCount } from './range';

const HOUR = 3600_000;
const DAY = 86_400_000;
const now = new Date('2026-12-02T00:00:00Z');
const at = (ms: number) => new Date(now.getTime() + ms);

describe('the step of a range of usage', () => {
  it('is the minute up to 6 hours, the hour up to 14 days, the day beyond', () => {
    expect(chooseStep(at(-6 * HOUR), now, now, 'UTC')).toEqual({ ok: true, step: 'minute', points: 360 });
    expect(chooseStep(at(-6 * HOUR - 1), now, now, 'UTC')).toEqual({ ok: true, step: 'hour', points: 7 });
    expect(chooseStep(at(-14 * DAY), now, now, 'UTC')).toEqual({ ok: true, step: 'hour', points: 336 });
    expect(chooseStep(at(-14 * DAY - 1), now, now, 'UTC')).toEqual({ ok: true, step: 'day', points: 15 });
  });

  it('is coarser when the finer rows are no longer kept, and refuses what no step keeps', () => {
    expect(chooseStep(at(-7 * DAY - HOUR), at(-7 * DAY), now, 'UTC')).toMatchObject({ step: 'hour', points: 1 });
    expect(chooseStep(at(-90 * DAY - HOUR), at(-90 * DAY), now, 'UTC')).toMatchObject({ step: 'day', points: 1 });
    expect(chooseStep(at(-400 * DAY - HOUR), at(-400 * DAY), now, 'UTC')).toMatchObject({ ok: false, field: 'from' });
  });

  it('refuses an empty or reversed range, and one of more than 500 points', () => {
    expect(chooseStep(now, now, now, 'UTC')).toMatchObject({ ok: false, field: 'from' });
    expect(chooseStep(at(1), now, now, 'UTC')).toMatchObject({ ok: false, field: 'from' });
    expect(chooseStep(at(-100 * DAY), at(400 * DAY), now, 'UTC')).toMatchObject({ ok: true, step: 'day', points: 500 });
    expect(chooseStep(at(-100 * DAY), at(400 * DAY + 1), now, 'UTC')).toMatchObject({ ok: false, field: 'from' });
  });

  it("counts the calendar days of the zone: Asia/Kolkata's days start at 18:30 UTC", () => {
    // 18:00 to 19:00 UTC is two days in Kolkata (23:30 and 00:30), one in UTC.
    const from = new Date('2026-11-30T18:00:00Z');
    const to = new Date('2026-11-30T19:00:00Z');
    expect(pointCount(from, to, 'day', 'Asia/Kolkata')).toBe(2);
    expect(pointCount(from, to, 'day', 'UTC')).toBe(1);
    expect(pointCount(new Date('2026-11-30T18:30:00Z'), new Date('2026-12-01T18:30:00Z'), 'day', 'Asia/Kolkata')).toBe(1);
  });
});
