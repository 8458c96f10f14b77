import { z } from 'zod';
import { patchSchema } from './validation';

/**
 * Algorithms the enforcement engine can run for a limit (libs/limiter/README.md describes each). The one list:
 * the API validates with it, the limiter runs it, the dashboard's select offers it, Postgres has it as an enum.
 */
export const ALGORITHMS = [
  'fixed_window',
  'sliding_log',
  'sliding_window',
  'token_bucket',
  'leaky_bucket',
  'leaky_bucket_shaper',
  'gcra',
] as const;
export type Algorithm = (typeof ALGORITHMS)[number];

/** What a limit runs when none is named. */
export const DEFAULT_ALGORITHM: Algorithm = 'fixed_window';

/** Algorithms with a bucket: a capacity (`burst`, defaulting to the limit) apart from their rate. */
export const BUCKET_ALGORITHMS: readonly Algorithm[] = ['token_bucket', 'leaky_bucket', 'leaky_bucket_shaper', 'gcra'];

/** Whether `algorithm` takes a `burst` (any string: a form's value is checked before it is known to be one). */
export function usesBurst(algorithm: string): boolean {
  return (BUCKET_ALGORITHMS as readonly string[]).includes(algorithm);
}

/**
 * Calendar windows a fixed window may follow: it resets at midnight (day) or on the 1st (month) in the tenant's
 * time zone instead of every `windowS` seconds (docs/adr/0014-calendar-windows-are-explicit.md).
 */
export const CALENDARS = ['day', 'month'] as const;
export type Calendar = (typeof CALENDARS)[number];

export const DAY_S = 86_400;

/**
 * The `windowS` of a calendar limit: what `RateLimit-Policy` announces (`w=`) and what the lists sort by. A day
 * of a DST change is 23 or 25 hours and a month 28 to 31 days; the longest is given.
 */
export const CALENDAR_WINDOW_S: Readonly<Record<Calendar, number>> = { day: DAY_S, month: 31 * DAY_S };

export const MAX_LIMIT = 1_000_000_000;
export const MAX_WINDOW_S = 366 * DAY_S;

export const limitNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must be 1-32 lower-case letters, digits, _ or -, starting with a letter');

const wholeNumber = () => z.int('must be a whole number').min(1, 'must be at least 1').max(MAX_LIMIT, `must be at most ${MAX_LIMIT}`);

/** The fields of a limit with readable messages: every other limit schema is made of these. */
export const limitInputFields = {
  windowS: z.int('must be a whole number of seconds').min(1, 'must be at least 1').max(MAX_WINDOW_S, `must be at most ${MAX_WINDOW_S} (366 days)`),
  limit: wholeNumber(),
  algorithm: z.enum(ALGORITHMS, `must be one of ${ALGORITHMS.join(', ')}`),
  /** Bucket capacity for token/leaky buckets and GCRA; null = `limit`. */
  burst: wholeNumber().nullable(),
  /** A fixed window that follows the calendar in the tenant's time zone; null = every `windowS` seconds from the epoch. */
  calendar: z
    .enum(CALENDARS, `must be one of ${CALENDARS.join(', ')}, or null`)
    .nullable()
    .describe("fixed_window only: resets at midnight (day) or on the 1st (month) in the tenant's time zone, windowS being the calendar's (86400, 2678400; may be left out); null: every windowS seconds"),
};

type LimitShape = { windowS: number; algorithm: Algorithm; calendar?: Calendar | null };

/** What the fields of a limit cannot say one by one: a calendar is a fixed window's, as long as the calendar's window. */
export function limitShapeProblem(limit: LimitShape): { path: string; message: string } | null {
  if (limit.calendar === null || limit.calendar === undefined) return null;
  if (limit.algorithm !== 'fixed_window') return { path: 'calendar', message: 'only a fixed_window can follow the calendar' };
  const windowS = CALENDAR_WINDOW_S[limit.calendar];
  if (limit.windowS !== windowS) return { path: 'windowS', message: `a calendar ${limit.calendar} has windowS ${windowS} (or leave windowS out)` };
  return null;
}

function refineShape(limit: LimitShape, ctx: z.RefinementCtx): void {
  const problem = limitShapeProblem(limit);
  if (problem) ctx.addIssue({ code: 'custom', path: [problem.path], message: problem.message });
}

/** One limit as it is stored and shown: at most `limit` units of cost per window of `windowS` seconds. */
export const limitSchema = z.object({ name: limitNameSchema, ...limitInputFields }).superRefine(refineShape);
export type Limit = z.infer<typeof limitSchema>;

/**
 * What any limit shows, whichever it is (a plan's or a policy's as the admin API shows it, an override, one compiled
 * into the rule set): its count, window and algorithm, and `burst` and `calendar` where it has them.
 */
export type LimitShown = Pick<Limit, 'limit' | 'windowS' | 'algorithm'> & Partial<Pick<Limit, 'burst' | 'calendar'>>;

/** What a limit without a calendar had until calendars were explicit: a fixed window of exactly a day followed it. */
export function legacyCalendar(limit: { windowS: unknown; algorithm: unknown }): Calendar | null {
  return limit.algorithm === 'fixed_window' && limit.windowS === DAY_S ? 'day' : null;
}

/**
 * A limit as a compiled rule set carries it: `burst` and `calendar` only when set (compiled versions stay as
 * they were for limits without them). See `withExplicitCalendars` for versions compiled before calendars.
 */
export const limitSpecSchema = z
  .object({
    name: limitNameSchema,
    ...limitInputFields,
    burst: limitInputFields.burst.unwrap().optional(),
    calendar: limitInputFields.calendar.unwrap().optional(),
  })
  .superRefine(refineShape);
export type LimitSpec = z.infer<typeof limitSpecSchema>;

/**
 * A limit of the control plane as the compiled rule set carries it (see `limitSpecSchema`); the compiler passes
 * rows as they are stored (`A` = string) and the rule set schema judges them next.
 */
export function toLimitSpec<A extends string>(l: { name: string; windowS: number; limit: number; algorithm: A; burst?: number | null; calendar?: Calendar | null }) {
  return { name: l.name, windowS: l.windowS, limit: l.limit, algorithm: l.algorithm, ...(l.burst ? { burst: l.burst } : {}), ...(l.calendar ? { calendar: l.calendar } : {}) };
}

const newLimitFields = {
  ...limitInputFields,
  windowS: limitInputFields.windowS.optional(),
  algorithm: limitInputFields.algorithm.default(DEFAULT_ALGORITHM),
  burst: limitInputFields.burst.default(null),
  calendar: limitInputFields.calendar.default(null),
};

/** A calendar limit's `windowS` is the calendar's: it may be left out, and is filled in here. */
function withWindow<T extends { windowS?: number | undefined; algorithm: Algorithm; calendar: Calendar | null }>(input: T, ctx: z.RefinementCtx): T & { windowS: number } {
  const windowS = input.windowS ?? (input.calendar ? CALENDAR_WINDOW_S[input.calendar] : undefined);
  if (windowS === undefined) {
    ctx.addIssue({ code: 'custom', path: ['windowS'], message: 'must be a whole number of seconds (it may be left out only with a calendar)' });
    return z.NEVER;
  }
  const limit = { ...input, windowS };
  refineShape(limit, ctx);
  return limit;
}

/** A new limit; `algorithm` defaults to a fixed window, `burst` to the limit, `calendar` to none. */
export const newLimitSchema = z.strictObject({ name: limitNameSchema, ...newLimitFields }).transform(withWindow);
export type NewLimit = z.infer<typeof newLimitSchema>;
/** A new limit as a client sends it: `algorithm`, `burst` and `calendar` may be left out, `windowS` with a calendar. */
export type NewLimitBody = z.input<typeof newLimitSchema>;

/** A whole limit but its name, which is given apart (a tenant's override, named in the path): replaces what there was. */
export const limitBodySchema = z.strictObject(newLimitFields).transform(withWindow);
export type LimitBody = z.infer<typeof limitBodySchema>;

/**
 * A change of a limit: any of its fields but its name (its identity). Whether the result holds together (a
 * calendar on a fixed window of the calendar's length) is checked against the stored limit: see `patchedLimit`.
 */
export const limitPatchSchema = patchSchema(limitInputFields);
export type LimitPatch = z.infer<typeof limitPatchSchema>;

/**
 * The limit a patch makes of `before`, or a `validation_failed` problem. Setting a calendar without a window sets
 * the calendar's window; changing the window or the algorithm of a calendar limit needs `calendar: null` with it.
 */
export function patchedLimit<T extends LimitShape & { limit: number; burst: number | null }>(
  before: T,
  patch: LimitPatch,
): { data: LimitPatch; problem: null } | { data: null; problem: { path: string; message: string } } {
  const data = patch.calendar && patch.windowS === undefined ? { ...patch, windowS: CALENDAR_WINDOW_S[patch.calendar] } : patch;
  const problem = limitShapeProblem({ windowS: data.windowS ?? before.windowS, algorithm: data.algorithm ?? before.algorithm, calendar: data.calendar === undefined ? (before.calendar ?? null) : data.calendar });
  return problem ? { data: null, problem } : { data, problem: null };
}

/** A list of new limits with unique names. */
export const newLimitsSchema = z
  .array(newLimitSchema)
  .max(20)
  .default([])
  .refine((ls) => new Set(ls.map((l) => l.name)).size === ls.length, 'limit names must be unique');
