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

/**
 * The window that holds `from` and the end of the window after it. The Redis engine passes both to the
 * script, which picks one on Redis's own clock: a caller whose clock is a little off still lands in the
 * right day or month at midnight.
 */
export function calendarWindowsFrom(calendar: CalendarWindow, from: number): TimeWindow & { nextEnd: number } {
  const start = startOf(calendar, from);
  const end = after(calendar, start);
  return { start: start.getTime(), end: end.getTime(), nextEnd: after(calendar, end).getTime() };
}

/**
 * One calendar rule's windows, the last ones computed kept: time-zone arithmetic takes tens of microseconds and a
 * window lasts a day or a month. Held by the rule's prepared rules (and its memory model), never shared globally.
 */
export class CalendarWindows {
  private last: (TimeWindow & { nextEnd: number }) | undefined;

  constructor(readonly calendar: CalendarWindow) {}

  /** `calendarWindowsFrom(calendar, from)`. */
  from(from: number): TimeWindow & { nextEnd: number } {
    const { last } = this;
    if (last && from >= last.start && from < last.end) return last;
    this.last = calendarWindowsFrom(this.calendar, from);
    return this.last;
  }
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
