/**
 * Milliseconds to wait from a `Retry-After` value: delay-seconds (`"120"`) or an HTTP-date
 * (`"Wed, 21 Oct 2026 07:28:00 GMT"`, parsed by the platform's `Date.parse`), relative to `nowMs`. Numbers are
 * taken as seconds. `undefined` when absent or unreadable; never negative.
 */
export function retryAfterMs(value: string | number | Date | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (value instanceof Date) return clamp(value.getTime() - nowMs);
  if (typeof value === 'number') return Number.isFinite(value) ? clamp(value * 1000) : undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : clamp(at - nowMs);
}

function clamp(ms: number): number | undefined {
  return Number.isFinite(ms) ? Math.max(0, ms) : undefined;
}
