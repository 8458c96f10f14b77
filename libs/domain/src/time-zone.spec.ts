import { describe, expect, it } from 'vitest';
import { timeZoneProblem, timeZoneSchema } from './time-zone';

describe('time zones', () => {
  it.each([
    'UTC',
    'Europe/Berlin',
    'America/Chicago',
    'Asia/Tokyo',
    // The database's current names, which ICU lists under their older ones (Asia/Calcutta, Europe/Kiev, …).
    'Asia/Kolkata',
    'Europe/Kyiv',
    'America/Argentina/Buenos_Aires',
    'Asia/Ho_Chi_Minh',
    'America/Port-au-Prince',
    'Europe/Isle_of_Man',
  ])('accepts %s', (name) => {
    expect(timeZoneProblem(name)).toBeNull();
  });

  it('accepts every zone the runtime lists, as it spells them', () => {
    expect(Intl.supportedValuesOf('timeZone').filter((name) => timeZoneProblem(name) !== null)).toEqual([]);
  });

  it.each([
    ['an offset', '+05:30', 'must be an IANA time zone name'],
    ['another spelling of UTC', 'utc', 'must be spelled UTC'],
    ['a lower-case zone', 'europe/berlin', 'must be spelled Europe/Berlin'],
    ['a lower-case link', 'asia/kolkata', 'is read as Asia/Calcutta'],
    ['an upper-case location', 'Asia/KOLKATA', 'is read as Asia/Calcutta'],
    ['an abbreviation ICU reads as another zone', 'BST', 'is read as Asia/Dhaka'],
    ['an Etc zone, whose sign is inverted', 'Etc/GMT+5', 'is read as Etc/GMT+5'],
    ['Etc/UTC', 'Etc/UTC', 'is read as UTC'],
    ['a legacy name', 'US/Eastern', 'is read as America/New_York'],
    ['an unknown zone', 'Mars/Olympus', 'must be an IANA time zone name'],
    ['nothing', '', 'must be an IANA time zone name'],
    ['a NUL', 'Europe/Berlin\u0000', 'must be an IANA time zone name'],
  ])('refuses %s (%s)', (_label, name, problem) => {
    expect(timeZoneProblem(name)).toContain(problem);
    expect(timeZoneSchema.safeParse(name).success).toBe(false);
  });
});
