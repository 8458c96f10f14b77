import { z } from 'zod';

/** A time in a query: ISO 8601 with its zone (`2026-12-01T00:00:00Z`, `2026-12-01T05:30:00+05:30`), as a Date. */
export const instantQuery = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 time with its zone (2026-12-01T00:00:00Z)' })
  .transform((s) => new Date(s))
  .refine((d) => !Number.isNaN(d.getTime()), 'is not a time that exists');
