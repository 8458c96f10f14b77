import { legacyCalendar } from './limits';

/**
 * Rule set versions compiled before calendars were explicit (no `explicitCalendars`) made every fixed window of
 * exactly a day follow the tenant's calendar day. Such a version is read as if it said so: those limits get
 * `calendar: 'day'` (docs/adr/0014-calendar-windows-are-explicit.md). Anything else is returned as it is, for
 * the schema to judge.
 */
export function withExplicitCalendars(raw: unknown): unknown {
  if (!isRecord(raw) || raw['explicitCalendars'] === true) return raw;
  const tenants = isRecord(raw['tenants']) ? mapValues(raw['tenants'], withLimits) : raw['tenants'];
  const policies = isRecord(raw['policies'])
    ? mapValues(raw['policies'], (owners) => (isRecord(owners) ? mapValues(owners, (table) => (isRecord(table) ? mapValues(table, withLimits) : table)) : owners))
    : raw['policies'];
  return { ...raw, tenants, ...(raw['policies'] === undefined ? {} : { policies }), explicitCalendars: true };
}

function withLimits(holder: unknown): unknown {
  if (!isRecord(holder) || !Array.isArray(holder['limits'])) return holder;
  const limits = holder['limits'].map((limit: unknown) => {
    if (!isRecord(limit) || 'calendar' in limit) return limit;
    const calendar = legacyCalendar({ windowS: limit['windowS'], algorithm: limit['algorithm'] });
    return calendar ? { ...limit, calendar } : limit;
  });
  return { ...holder, limits };
}

// Entries, not indexing: the keys are slugs and routes, which may be any name (`constructor` included).
function mapValues(record: Record<string, unknown>, fn: (value: unknown) => unknown): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, fn(value)]));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
