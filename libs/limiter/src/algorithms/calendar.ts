import { TZDate } from '@date-fns/tz';
import { addDays, addMonths, startOfDay, startOfMonth } from 'date-fns';
import type { CalendarWindow } from '../contract';

/** A window [start, end) in epoch ms. */
export interface TimeWindow {
  start: number;
  end: number;
}

/** The calendar window (local day or month in the rule's time zone) that holds `now`. */
export function calendarWindowAt(calendar: CalendarWindow, now: number): TimeWindow {
  return calendarWindowsFrom(calendar, now);
}

/** Per calendar (a rule's, immutable): the window last computed; time-zone arithmetic is slow, windows are long. */
const lastWindows = new WeakMap<CalendarWindow, TimeWindow & { nextEnd: number }>();

/**
 * The window that holds `from` and the end of the window after it. The Redis engine passes both to the
 * script, which picks one on Redis's own clock: a caller whose clock is a little off still lands in the
 * right day or month at midnight.
 */
export function calendarWindowsFrom(calendar: CalendarWindow, from: number): TimeWindow & { nextEnd: number } {
  const last = lastWindows.get(calendar);
  if (last && from >= last.start && from < last.end) return last;
  const start = startOf(calendar, from);
  const end = after(calendar, start);
  const windows = { start: start.getTime(), end: end.getTime(), nextEnd: after(calendar, end).getTime() };
  lastWindows.set(calendar, windows);
  return windows;
}

/** Whether `timeZone` is an IANA zone this runtime knows. */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

function startOf(calendar: CalendarWindow, now: number): TZDate {
  const local = new TZDate(now, calendar.timeZone);
  return calendar.unit === 'day' ? startOfDay(local) : startOfMonth(local);
}

function after(calendar: CalendarWindow, start: TZDate): TZDate {
  return calendar.unit === 'day' ? addDays(start, 1) : addMonths(start, 1);
}
