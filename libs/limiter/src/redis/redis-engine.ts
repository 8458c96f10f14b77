import { join } from 'node:path';
import { calendarWindowsFrom } from '../algorithms/calendar';
import { systemClock } from '../clock';
import type { Clock, Decision, Lease, LeaseRequest, Limiter, LimitRequest } from '../contract';
import { toDecision, type RuleNumbers } from '../evaluate';
import { BUCKET_ALGORITHMS, resolveRequest, subjectOf, type Operation, type ResolvedRule } from '../rules';
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
  /**
   * Decisions of one tenant that are asked for in the same turn of the event loop go to Redis in one script
   * call (at most `maxBatch` each), made one after another inside it, each exactly as if it were alone.
   * Under load that saves Redis most of the fixed cost of a call; alone, a decision waits for nothing but
   * the end of the current turn. Default true.
   */
  batch?: boolean;
  /**
   * The most decisions one script call makes (default `MAX_BATCH`). Smaller batches keep several calls in
   * flight, so Node reads one reply while Redis runs the next call.
   */
  maxBatch?: number;
}

/** The most decisions one script call makes, by default. */
export const MAX_BATCH = 16;

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

/** One decision waiting for its batch's script call. */
interface Pending {
  keys: string[];
  args: (string | number)[];
  rules: readonly ResolvedRule[];
  resolve: (lease: Lease) => void;
  reject: (err: unknown) => void;
}

/**
 * The limiter on Redis: every operation is one call of `lua/limit.lua` (EVALSHA, EVAL after NOSCRIPT) that
 * evaluates every rule of the request with its algorithm, atomically, on Redis's clock. Concurrent decisions
 * of one tenant share a call (see `RedisEngineOptions.batch`).
 */
export class RedisEngine implements Limiter {
  /** Decisions waiting for the end of this turn, by tenant key prefix and clock. */
  private readonly batches = new Map<string, Pending[]>();

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

  private run(operation: Operation, request: Omit<LimitRequest, 'cost'>, amount: number): Promise<Lease> {
    let rules: readonly ResolvedRule[];
    try {
      rules = resolveRequest(operation, request, amount);
    } catch (err) {
      return Promise.reject(err);
    }
    const injected = this.options.clock && Math.floor(this.options.clock.now());
    const callerNow = injected ?? systemClock.now();
    const prefix = tenantKeyPrefix(request.tenantId);
    const subject = request.ruleSubjects ? undefined : subjectHash(request.subject);
    const keys: string[] = [];
    const args: (string | number)[] = [operation, amount, rules.length];
    const plans = planOf(rules);
    for (let i = 0; i < plans.length; i += 1) {
      const plan = plans[i] as RulePlan;
      keys.push(prefix + plan.keyPart + (subject ?? subjectHash(subjectOf(request, i))));
      for (const arg of plan.args) args.push(arg);
      const calendar = plan.rule.calendar;
      if (calendar) {
        const windows = calendarWindowsFrom(calendar, callerNow - CALENDAR_SKEW_MS);
        args.push(windows.start, windows.end, windows.nextEnd);
      }
    }
    return new Promise<Lease>((resolve, reject) => {
      const pending: Pending = { keys, args, rules, resolve, reject };
      if (this.options.batch === false) return void this.send(injected, [pending]);
      const batchKey = injected === undefined ? prefix : `${prefix}${injected}`;
      const batch = this.batches.get(batchKey);
      if (batch) {
        batch.push(pending);
        if (batch.length >= (this.options.maxBatch ?? MAX_BATCH)) {
          this.batches.delete(batchKey);
          void this.send(injected, batch);
        }
        return;
      }
      this.batches.set(batchKey, [pending]);
      setImmediate(() => {
        const due = this.batches.get(batchKey);
        if (!due) return;
        this.batches.delete(batchKey);
        void this.send(injected, due);
      });
    });
  }

  /** One script call for `batch` (decisions of one tenant on one clock); settles each decision's promise. */
  private async send(injected: number | undefined, batch: Pending[]): Promise<void> {
    const keys: string[] = [];
    const args: (string | number)[] = [injected ?? '', injected === undefined ? 0 : INJECTED_CLOCK_TTL_EXTENSION_MS];
    for (const pending of batch) {
      for (const key of pending.keys) keys.push(key);
      for (const arg of pending.args) args.push(arg);
    }
    let reply: unknown;
    try {
      reply = await limitScript.run(this.redis, keys, args);
    } catch (err) {
      for (const pending of batch) pending.reject(err);
      return;
    }
    let offset = 1;
    for (const pending of batch) {
      try {
        pending.resolve(parseDecision(reply, offset, pending.rules));
      } catch (err) {
        pending.reject(err);
      }
      offset += 2 + 4 * pending.rules.length;
    }
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

/** The decision at `offset` of the script's reply (after `nowMs` at 0; see lua/limit.lua). */
function parseDecision(reply: unknown, offset: number, rules: readonly ResolvedRule[]): Lease {
  const end = offset + 2 + 4 * rules.length;
  if (!Array.isArray(reply) || reply.length < end || typeof reply[0] !== 'number') {
    throw new Error(`limit.lua: unexpected reply ${JSON.stringify(reply)}`);
  }
  const n = reply as unknown[];
  const at = (i: number): number => {
    const value = n[i];
    if (typeof value !== 'number') throw new Error(`limit.lua: unexpected reply ${JSON.stringify(reply)}`);
    return value;
  };
  const numbers: RuleNumbers[] = rules.map((_, i) => ({
    remaining: at(offset + 2 + 4 * i),
    resetMs: at(offset + 3 + 4 * i),
    retryAfterMs: at(offset + 4 + 4 * i),
    delayMs: at(offset + 5 + 4 * i),
  }));
  return { granted: at(offset + 1), decision: toDecision(at(0), at(offset) === 1, rules, numbers) };
}
