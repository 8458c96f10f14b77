import { modelFor, type AlgorithmModel } from './algorithms';
import { CalendarWindows } from './algorithms/calendar';
import type { Decision, Lease, LeaseRequest, Limiter, LimitRequest, LimitRule } from './contract';
import { CostExceedsCapacityError, InvalidLimitRequestError, InvalidRuleError, LeaseNotSupportedError } from './errors';
import { ALGORITHM_CODES, ruleKeyPart, subjectHash, tenantKeyPrefix } from './redis/keys';
import { BUCKET_ALGORITHMS, isPositiveInteger, MAX_UNITS, regionShare, resolveRule, type Operation, type ResolvedRule } from './rules';
import { REGION_FIXED_WINDOW_CODE } from './redis/script-spec';

/**
 * A rule array made ready for both engines, once: every rule validated and resolved, and what a decision sends to the
 * script or runs in memory for each of them. The API prepares the rules of each (tenant, policy) once per rule set
 * version; tests and tools that write rules inline prepare them on every call (`preparingEachCall`). Frozen: the
 * engines keep nothing about rules of their own. Both engines' work per request on prepared rules is here too: the
 * request's own checks, its keys' prefix, the `Decision` from each rule's numbers.
 */
export interface PreparedRules {
  readonly rules: readonly ResolvedRule[];
  /** Per rule `<algorithm code>[<parts per unit>]:<rule name>:`, the middle of its key (redis/keys.ts). */
  readonly keyParts: readonly string[];
  /** Per rule, its ARGV but a calendar window's bounds (see the header of lua/limit.lua). */
  readonly ruleArgs: readonly (readonly string[])[];
  /** The number of rules, then every rule's ARGV: what a call sends when no rule follows the calendar. */
  readonly args: readonly string[];
  /** Whether a rule follows the calendar: its ARGV then add the window's bounds, as of each call. */
  readonly calendar: boolean;
  /** Per rule that follows the calendar, its windows (the last ones kept); undefined for the others. */
  readonly calendars: readonly (CalendarWindows | undefined)[];
  /**
   * Rules prepared for one tenant: its id, its key prefix (`tg:{<tenant tag>}:`, hashed once) and each rule's key
   * for the tenant as a whole (no subject).
   */
  readonly tenant?: { readonly id: string; readonly keyPrefix: string; readonly wholeTenantKeys: readonly string[] };
  /** Per rule, its algorithm's model (pure), which the memory engine runs. */
  readonly models: readonly AlgorithmModel<unknown>[];
}

/**
 * Validates and resolves `rules` (throwing the first invalid rule's error, then a repeated name's) and prepares them;
 * with `tenantId`, for that tenant's decisions (any tenant's decisions may still use them).
 */
export function prepareRules(rules: readonly LimitRule[], tenantId?: string): PreparedRules {
  const resolved = rules.map(resolveRule);
  const names = new Set<string>();
  resolved.forEach((rule, i) => {
    if (names.has(rule.name)) throw new InvalidRuleError(rule.name, 'duplicate_name', 'the name is used twice', `rules.${i}.name`);
    names.add(rule.name);
  });
  const perRule = resolved.map((rule) => Object.freeze(ruleArgs(rule)));
  const keyParts = Object.freeze(resolved.map(ruleKeyPart));
  const keyPrefix = tenantId === undefined ? '' : tenantKeyPrefix(tenantId);
  return Object.freeze({
    rules: Object.freeze(resolved),
    keyParts,
    ruleArgs: Object.freeze(perRule),
    args: Object.freeze([String(resolved.length), ...perRule.flat()]),
    calendar: resolved.some((rule) => rule.calendar !== undefined),
    calendars: Object.freeze(resolved.map((rule) => rule.calendar && new CalendarWindows(rule.calendar))),
    models: Object.freeze(resolved.map(modelFor)),
    ...(tenantId === undefined ? {} : { tenant: Object.freeze({ id: tenantId, keyPrefix, wholeTenantKeys: Object.freeze(keyParts.map((part) => keyPrefix + part + subjectHash(undefined))) }) }),
  });
}

/** The key prefix of `tenantId`: the prepared one when the rules were prepared for this tenant. */
export function keyPrefixOf(prepared: PreparedRules, tenantId: string): string {
  return prepared.tenant?.id === tenantId ? prepared.tenant.keyPrefix : tenantKeyPrefix(tenantId);
}

/** The ARGV of a rule but a calendar window's bounds (see the header of lua/limit.lua); `prepareRules` keeps them. */
export function ruleArgs(rule: ResolvedRule): string[] {
  const code = ALGORITHM_CODES[rule.algorithm];
  if (BUCKET_ALGORITHMS.includes(rule.algorithm)) {
    // The widest number the bucket stores: its parts when full, or (GCRA) a remainder below the rate.
    const widest = rule.algorithm === 'gcra' ? rule.rate - 1 : rule.capacity * rule.partsPerUnit;
    return [code, String(rule.rate), String(rule.partsPerUnit), String(rule.capacity), packPattern(widest, 2)];
  }
  const window = rule.calendar ? '0' : String(rule.windowMs);
  // One quota across regions: its own code, and the region's share of the limit (its allowance until it has one).
  if (rule.regions) return [REGION_FIXED_WINDOW_CODE, String(rule.limit), window, String(regionShare(rule.limit, rule.regions))];
  const args = [code, String(rule.limit), window];
  if (rule.algorithm === 'sliding_window') args.push(packPattern(rule.limit, 3));
  return args;
}

/**
 * The `string.format` pattern that packs `count` numbers of a rule's state into one integer: the first as it
 * is, the others zero-padded to the digits of `widest`, then that width - 1; '' when the width is above 10
 * (the state is then written as `a:b[:c]`). See joinDigits in lua/includes/common.lua.
 */
export function packPattern(widest: number, count: 2 | 3): string {
  const width = String(widest).length;
  if (width > 10) return '';
  return `%d${`%0${width}d`.repeat(count - 1)}${width - 1}`;
}

/** The subject rule `i` of a request counts (its own, or the request's). */
export function subjectOf(request: Pick<LimitRequest, 'subject' | 'ruleSubjects'>, i: number): string | undefined {
  return request.ruleSubjects ? request.ruleSubjects[i] : request.subject;
}

/**
 * Validates a request for `operation` against its prepared rules; throws a typed error before any state is touched.
 * `amount` is the cost, or the lease's maximum. The rules themselves were validated when they were prepared
 * (`prepareRules`); these are the checks that depend on the request.
 */
export function validateRequest(operation: Operation, request: Omit<LimitRequest, 'cost'>, amount: number): readonly ResolvedRule[] {
  const field = operation === 'lease' ? 'max' : 'cost';
  if (typeof request.tenantId !== 'string' || request.tenantId.length === 0) {
    throw new InvalidLimitRequestError('tenantId must be a non-empty string', 'tenantId');
  }
  if (request.subject !== undefined && typeof request.subject !== 'string') {
    throw new InvalidLimitRequestError('subject must be a string', 'subject');
  }
  const { rules } = request.rules;
  const { ruleSubjects } = request;
  if (ruleSubjects !== undefined) {
    if (!Array.isArray(ruleSubjects) || ruleSubjects.length !== rules.length) {
      throw new InvalidLimitRequestError('ruleSubjects must have one entry per rule', 'ruleSubjects');
    }
    for (const s of ruleSubjects) if (s !== undefined && typeof s !== 'string') throw new InvalidLimitRequestError('ruleSubjects must be strings', 'ruleSubjects');
  }
  if (!isPositiveInteger(amount) || amount > MAX_UNITS) {
    throw new InvalidLimitRequestError(`${field} must be an integer from 1 to ${MAX_UNITS}`, field);
  }
  const { shadowFrom } = request;
  if (shadowFrom !== undefined && (!Number.isInteger(shadowFrom) || shadowFrom < 0 || shadowFrom > rules.length)) {
    throw new InvalidLimitRequestError('shadowFrom must be the index of a rule', 'shadowFrom');
  }
  for (const rule of rules) {
    if (operation === 'lease' && rule.algorithm === 'leaky_bucket_shaper') throw new LeaseNotSupportedError(rule.name);
    if (amount > rule.capacity) throw new CostExceedsCapacityError(rule.name, rule.capacity, amount, field);
  }
  return rules;
}

/** One rule's numbers in a decision, as the Lua script replies them. */
export interface RuleNumbers {
  remaining: number;
  resetMs: number;
  retryAfterMs: number;
  delayMs: number;
}

/** The contract's `Decision` from per-rule numbers (shared by both engines; loops, as it runs on every decision). */
export function toDecision(nowMs: number, allowed: boolean, rules: readonly ResolvedRule[], numbers: readonly RuleNumbers[]): Decision {
  const outcomes: Decision['rules'] = [];
  let retryAfterMs = 0;
  let delayMs = 0;
  for (let i = 0; i < rules.length; i += 1) {
    const rule = rules[i] as ResolvedRule;
    const n = numbers[i] ?? { remaining: 0, resetMs: 0, retryAfterMs: 0, delayMs: 0 };
    outcomes.push({ name: rule.name, algorithm: rule.algorithm, limit: rule.capacity, remaining: n.remaining, resetMs: n.resetMs, retryAfterMs: n.retryAfterMs });
    retryAfterMs = Math.max(retryAfterMs, n.retryAfterMs);
    delayMs = Math.max(delayMs, n.delayMs);
  }
  return { allowed, retryAfterMs: allowed ? 0 : retryAfterMs, delayMs: allowed ? delayMs : 0, nowMs, rules: outcomes };
}

/** A request with its rules as written, not prepared yet. */
export type WithRuleList<R extends { rules: PreparedRules }> = Omit<R, 'rules'> & { rules: readonly LimitRule[] };

/** The limiter's operations on requests whose rules are written inline (tests, tools). */
export interface RuleListLimiter {
  consume(request: WithRuleList<LimitRequest>): Promise<Decision>;
  peek(request: WithRuleList<LimitRequest>): Promise<Decision>;
  refund(request: WithRuleList<LimitRequest>): Promise<Decision>;
  lease(request: WithRuleList<LeaseRequest>): Promise<Lease>;
}

/**
 * `engine` for callers that write their rules inline: each call prepares its rules, then asks the engine. An invalid
 * rule rejects the call's promise, as the engine's own refusals do.
 */
export function preparingEachCall(engine: Limiter): RuleListLimiter {
  const prepared = <R extends { rules: readonly LimitRule[] }>(request: R) => ({ ...request, rules: prepareRules(request.rules) });
  return {
    consume: async (request) => engine.consume(prepared(request)),
    peek: async (request) => engine.peek(prepared(request)),
    refund: async (request) => engine.refund(prepared(request)),
    lease: async (request) => engine.lease(prepared(request)),
  };
}
