import { modelFor, type AlgorithmModel } from './algorithms';
import { CalendarWindows } from './algorithms/calendar';
import type { Decision, Lease, LeaseRequest, Limiter, LimitRequest, LimitRule } from './contract';
import { InvalidRuleError } from './errors';
import { ruleKeyPart, tenantKeyPrefix } from './redis/keys';
import { ruleArgs } from './redis/protocol';
import { resolveRule, type ResolvedRule } from './rules';

/**
 * A rule array made ready for both engines, once: every rule validated and resolved, and what a decision sends to the
 * script or runs in memory for each of them. The API prepares the rules of each (tenant, policy) once per rule set
 * version; tests and tools that write rules inline prepare them on every call (`preparingEachCall`). Frozen: the
 * engines keep nothing about rules of their own.
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
  /** Rules prepared for one tenant: its id and its key prefix (`tg:{<tenant tag>}:`), hashed once. */
  readonly tenant?: { readonly id: string; readonly keyPrefix: string };
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
  return Object.freeze({
    rules: Object.freeze(resolved),
    keyParts: Object.freeze(resolved.map(ruleKeyPart)),
    ruleArgs: Object.freeze(perRule),
    args: Object.freeze([String(resolved.length), ...perRule.flat()]),
    calendar: resolved.some((rule) => rule.calendar !== undefined),
    calendars: Object.freeze(resolved.map((rule) => rule.calendar && new CalendarWindows(rule.calendar))),
    models: Object.freeze(resolved.map(modelFor)),
    ...(tenantId === undefined ? {} : { tenant: Object.freeze({ id: tenantId, keyPrefix: tenantKeyPrefix(tenantId) }) }),
  });
}

/** The key prefix of `tenantId`: the prepared one when the rules were prepared for this tenant. */
export function keyPrefixOf(prepared: PreparedRules, tenantId: string): string {
  return prepared.tenant?.id === tenantId ? prepared.tenant.keyPrefix : tenantKeyPrefix(tenantId);
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
