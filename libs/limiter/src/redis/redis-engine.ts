import { join } from 'node:path';
import { calendarWindowsFrom } from '../algorithms/calendar';
import { systemClock } from '../clock';
import type { Clock, Decision, Lease, LeaseRequest, Limiter, LimitRequest } from '../contract';
import { toDecision, type RuleNumbers } from '../evaluate';
import { BUCKET_ALGORITHMS, resolveRequest, type Operation, type ResolvedRule } from '../rules';
import { ALGORITHM_CODES, ruleKeyPart, subjectHash, tenantKeyPrefix } from './keys';
import { LuaScript, type ScriptClient } from './lua-script';

export const limitScript = LuaScript.load(join(__dirname, '..', 'lua'), 'limit');

/** How far back from the caller's clock calendar windows are computed: covers any sane clock skew. */
const CALENDAR_SKEW_MS = 60_000;

/**
 * With an injected clock, TTLs (which Redis counts on its own clock) are kept this much longer than the
 * engine's time says, so that a test's real time passing never expires state early. Stale state reads as
 * empty, so this changes no decision. Production (no injected clock) keeps TTLs exact.
 */
export const INJECTED_CLOCK_TTL_EXTENSION_MS = 60_000;

export interface RedisEngineOptions {
  /**
   * Tests only: decide on this clock (passed to the script) instead of Redis `TIME`, so that Redis and the
   * memory engine can be driven through the same instants. Keys then live
   * `INJECTED_CLOCK_TTL_EXTENSION_MS` longer than they need.
   */
  clock?: Clock;
}

/** What a rule sends to the script on every call, worked out once per rule. */
interface RulePlan {
  /** `<algorithm code>:<rule name>:` (see keys.ts). */
  keyPart: string;
  /** ARGV that never changes (see the header of lua/limit.lua); a calendar window adds its bounds per call. */
  args: string[];
  rule: ResolvedRule;
}

/** Plans per resolved rule array (`resolveRequest` hands out the same array for the same rules). */
const plans = new WeakMap<readonly ResolvedRule[], RulePlan[]>();

/**
 * The limiter on Redis: every operation is one call of `lua/limit.lua` (EVALSHA, EVAL after NOSCRIPT) that
 * evaluates every rule of the request with its algorithm, atomically, on Redis's clock.
 */
export class RedisEngine implements Limiter {
  constructor(
    private readonly redis: ScriptClient,
    private readonly options: RedisEngineOptions = {},
  ) {}

  async consume(request: LimitRequest): Promise<Decision> {
    return (await this.run('consume', request, request.cost)).decision;
  }

  async peek(request: LimitRequest): Promise<Decision> {
    return (await this.run('peek', request, request.cost)).decision;
  }

  async refund(request: LimitRequest): Promise<Decision> {
    return (await this.run('refund', request, request.cost)).decision;
  }

  lease(request: LeaseRequest): Promise<Lease> {
    return this.run('lease', request, request.max);
  }

  private async run(operation: Operation, request: Omit<LimitRequest, 'cost'>, amount: number): Promise<Lease> {
    const rules = resolveRequest(operation, request, amount);
    const injected = this.options.clock && Math.floor(this.options.clock.now());
    const callerNow = injected ?? systemClock.now();
    const extension = injected === undefined ? 0 : INJECTED_CLOCK_TTL_EXTENSION_MS;
    const prefix = tenantKeyPrefix(request.tenantId);
    const subject = subjectHash(request.subject);
    const keys: string[] = [];
    const args: (string | number)[] = [operation, injected ?? '', extension, amount];
    for (const plan of planOf(rules)) {
      keys.push(prefix + plan.keyPart + subject);
      args.push(...plan.args);
      const calendar = plan.rule.calendar;
      if (calendar) {
        const windows = calendarWindowsFrom(calendar, callerNow - CALENDAR_SKEW_MS);
        args.push(windows.start, windows.end, windows.nextEnd);
      }
    }
    const reply = await limitScript.run(this.redis, keys, args);
    return parseReply(reply, rules);
  }
}

function planOf(rules: readonly ResolvedRule[]): RulePlan[] {
  let plan = plans.get(rules);
  if (!plan) {
    plan = rules.map((rule) => ({ keyPart: ruleKeyPart(rule), args: ruleArgs(rule), rule }));
    plans.set(rules, plan);
  }
  return plan;
}

/** The ARGV of a rule but a calendar window's bounds (see the header of lua/limit.lua; exported for bench/). */
export function ruleArgs(rule: ResolvedRule): string[] {
  const code = ALGORITHM_CODES[rule.algorithm];
  if (BUCKET_ALGORITHMS.includes(rule.algorithm)) {
    // The widest number the bucket stores: its parts when full, or (GCRA) a remainder below the rate.
    const widest = rule.algorithm === 'gcra' ? rule.rate - 1 : rule.capacity * rule.unit;
    return [code, String(rule.rate), String(rule.unit), String(rule.capacity), String(String(widest).length)];
  }
  const args = [code, String(rule.limit), rule.calendar ? '0' : String(rule.windowMs)];
  if (rule.algorithm === 'sliding_window') args.push(String(String(rule.limit).length));
  return args;
}

function parseReply(reply: unknown, rules: readonly ResolvedRule[]): Lease {
  if (!Array.isArray(reply) || reply.length !== 3 + 4 * rules.length || !reply.every((n) => typeof n === 'number')) {
    throw new Error(`limit.lua: unexpected reply ${JSON.stringify(reply)}`);
  }
  const n = reply as number[];
  const at = (i: number) => n[i] ?? 0;
  const numbers: RuleNumbers[] = rules.map((_, i) => ({
    remaining: at(3 + 4 * i),
    resetMs: at(4 + 4 * i),
    retryAfterMs: at(5 + 4 * i),
    delayMs: at(6 + 4 * i),
  }));
  return { granted: at(2), decision: toDecision(at(0), at(1) === 1, rules, numbers) };
}
