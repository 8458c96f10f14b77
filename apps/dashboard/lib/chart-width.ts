/**
 * The width the browser last measured for a usage chart, remembered in a cookie so that the next server render draws
 * the chart at it: the page then hydrates without drawing the chart a second time, and its axes do not move on load.
 * Not a secret and not trusted: any value outside the range is ignored (the chart is then drawn at its default width
 * and measured again).
 */
export const CHART_WIDTH_COOKIE = 'tg_chart_width';

const MIN = 200;
const MAX = 4000;

/** The cookie's width, or undefined when it is absent or not a whole number of pixels in range. */
export function parseChartWidth(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{3,4}$/.test(value)) return undefined;
  const width = Number(value);
  return width >= MIN && width <= MAX ? width : undefined;
}

/** Remembers a measured width for the next load (a year; every page of the dashboard). */
export function rememberChartWidth(width: number): void {
  if (parseChartWidth(String(width)) === undefined) return;
  document.cookie = `${CHART_WIDTH_COOKIE}=${width}; path=/; max-age=31536000; samesite=lax`;
}
