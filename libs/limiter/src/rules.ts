import { isKnownTimeZone } from './algorithms/calendar';
import { MAX_EXACT_PRODUCT } from './algorithms/integers';
import { BUCKET_ALGORITHMS, CALENDARS, MAX_LIMIT, MAX_REGIONS, MAX_WINDOW_S } from '@tollgate/domain';
import { ALGORITHMS, type LimitRule, type RegionShare } from './contract';
import { InvalidRuleError, type InvalidRuleReason } from './errors';

/** A validated rule with its capacity worked out: what both engines run. */
export interface ResolvedRule extends LimitRule {
  /** `limit` for window algorithms, `burst ?? limit` for buckets and GCRA. */
  capacity: number;
  /**
   * Buckets and GCRA count in fractions of a unit: `partsPerUnit` parts make one unit and `rate` parts flow per ms.
   * That is `limit` per `windowMs` divided by their greatest common divisor, so every number a bucket keeps is
   * as small as it can be exactly (and its stored value packs into one integer, see lua/includes/common.lua).
   * Window algorithms: `limit` and `windowMs` as given (0 for a calendar window).
   */
  rate: number;
  /** The parts one unit of a bucket (or GCRA) is made of; a window algorithm's `windowMs` (0 for a calendar window). */
  partsPerUnit: number;
}

export type Operation = 'consume' | 'peek' | 'refund' | 'lease';

/** Units (limit, burst, cost) per rule: 1e9, as the plans allow. */
export const MAX_UNITS = MAX_LIMIT;
/** 366 days, as the plans allow. */
export const MAX_WINDOW_MS = MAX_WINDOW_S * 1000;
/** The most regions one quota is shared across (`LimitRule.regions`): named once, in the domain. */
export { MAX_REGIONS };
/** The sliding log stores one sorted-set member per admitted unit. */
export const MAX_SLIDING_LOG_LIMIT = 10_000;

const NAME = /^[a-z][a-z0-9_-]{0,31}$/;
/** Algorithms with a capacity (`burst ?? limit`) apart from their rate: named once, in the domain. */
export { BUCKET_ALGORITHMS };

export function resolveRule(rule: LimitRule, index: number): ResolvedRule {
  const field = (name: string) => `rules.${index}.${name}`;
  const fail = (reason: InvalidRuleReason, detail: string, name: string): never => {
    throw new InvalidRuleError(String(rule.name), reason, detail, field(name));
  };
  if (typeof rule.name !== 'string' || !NAME.test(rule.name)) {
    fail('bad_name', 'the name must be 1-32 lower-case letters, digits, _ or -, starting with a letter', 'name');
  }
  if (!(ALGORITHMS as readonly string[]).includes(rule.algorithm)) fail('unknown_algorithm', `unknown algorithm "${String(rule.algorithm)}"`, 'algorithm');
  positive(rule.limit, MAX_UNITS, 'limit', fail);
  if (rule.calendar === undefined) positive(rule.windowMs, MAX_WINDOW_MS, 'windowMs', fail);
  const bucket = BUCKET_ALGORITHMS.includes(rule.algorithm);
  if (bucket && rule.burst !== undefined) positive(rule.burst, MAX_UNITS, 'burst', fail);
  const capacity = bucket ? (rule.burst ?? rule.limit) : rule.limit;

  if (rule.calendar !== undefined) {
    if (rule.algorithm !== 'fixed_window') fail('bad_calendar', 'only a fixed window can follow the calendar', 'calendar');
    const { unit, timeZone } = rule.calendar;
    if (!(CALENDARS as readonly string[]).includes(unit)) fail('bad_calendar', `the calendar unit must be ${CALENDARS.map((c) => `"${c}"`).join(' or ')}`, 'calendar.unit');
    if (typeof timeZone !== 'string' || !isKnownTimeZone(timeZone)) fail('bad_calendar', `unknown time zone "${String(timeZone)}"`, 'calendar.timeZone');
  }
  if (rule.regions !== undefined) checkRegions(rule, fail);
  if (rule.algorithm === 'sliding_log' && rule.limit > MAX_SLIDING_LOG_LIMIT) {
    fail('too_large', `a sliding log stores every unit; its limit is at most ${MAX_SLIDING_LOG_LIMIT}`, 'limit');
  }
  if (rule.algorithm === 'sliding_window' && rule.limit * rule.windowMs > MAX_EXACT_PRODUCT) {
    fail('loses_precision', 'limit × windowMs must be at most 2^52 to stay exact', 'limit');
  }
  if (bucket && capacity * rule.windowMs > MAX_EXACT_PRODUCT) {
    fail('loses_precision', 'capacity × windowMs must be at most 2^52 to stay exact', rule.burst === undefined ? 'limit' : 'burst');
  }
  const window = rule.windowMs ?? 0;
  const divisor = bucket ? gcd(rule.limit, window) : 1;
  return { ...rule, capacity, rate: rule.limit / divisor, partsPerUnit: window / divisor };
}

/**
 * Region `index`'s share of `limit` when it is one quota across `count` regions and no allowance says otherwise:
 * limit ÷ count, the remainder to the first regions (the shares add up to the limit).
 */
export function regionShare(limit: number, { index, count }: RegionShare): number {
  return Math.floor(limit / count) + (index < limit % count ? 1 : 0);
}

function checkRegions(rule: LimitRule, fail: Fail): void {
  const { regions } = rule;
  if (rule.algorithm !== 'fixed_window') fail('bad_regions', 'only a fixed window can be one quota across regions', 'regions');
  if (typeof regions !== 'object' || regions === null) return void fail('bad_regions', 'regions must be { index, count }', 'regions');
  const { index, count } = regions;
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_REGIONS) fail('bad_regions', `regions.count must be an integer from 1 to ${MAX_REGIONS}`, 'regions.count');
  if (!Number.isSafeInteger(index) || index < 0 || index >= count) fail('bad_regions', 'regions.index must be an integer from 0 to regions.count - 1', 'regions.index');
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

type Fail = (reason: InvalidRuleReason, detail: string, field: string) => never;

function positive(value: unknown, max: number, name: string, fail: Fail): void {
  if (!isPositiveInteger(value)) fail('not_positive_integer', `${name} must be a positive integer`, name);
  if ((value as number) > max) fail('too_large', `${name} must be at most ${max}`, name);
}

export function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}
