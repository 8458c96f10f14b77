import { join } from 'node:path';
import { calendarWindowsFrom } from '../algorithms/calendar';
import { systemClock } from '../clock';
import type { Clock, Decision, Lease, LeaseRequest, Limiter, LimitRequest } from '../contract';
import { toDecision, type RuleNumbers } from '../evaluate';
import { resolveRequest, type Operation, type ResolvedRule } from '../rules';
import { ALGORITHM_CODES, ruleKey } from './keys';
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
    const keys = rules.map((rule) => ruleKey(request.tenantId, rule, request.subject));
    const extension = injected === undefined ? 0 : INJECTED_CLOCK_TTL_EXTENSION_MS;
    const args: (string | number)[] = [operation, injected ?? '', extension, amount];
    for (const rule of rules) args.push(...ruleArgs(rule, callerNow));
    const reply = await limitScript.run(this.redis, keys, args);
    return parseReply(reply, rules);
  }
}

/** ARGV for one rule (see the header of lua/limit.lua). */
function ruleArgs(rule: ResolvedRule, callerNow: number): (string | number)[] {
  const calendar = rule.calendar ? calendarWindowsFrom(rule.calendar, callerNow - CALENDAR_SKEW_MS) : undefined;
  const window = rule.calendar ? 0 : rule.windowMs;
  return [ALGORITHM_CODES[rule.algorithm], rule.limit, window, rule.capacity, calendar?.start ?? 0, calendar?.end ?? 0, calendar?.nextEnd ?? 0];
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
