import { join } from 'node:path';
import { calendarWindowsFrom } from '../algorithms/calendar';
import { systemClock } from '../clock';
import type { Clock, Decision, Lease, LeaseRequest, Limiter, LimitRequest } from '../contract';
import { toDecision, type RuleNumbers } from '../evaluate';
import { BUCKET_ALGORITHMS, resolveRequest, subjectOf, type Operation, type ResolvedRule } from '../rules';
import { ALGORITHM_CODES, ruleKeyPart, subjectHash, tenantKeyPrefix } from './keys';
import { DeadlineExceeded } from '../errors';
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
  /**
   * A script call not answered within this many ms fails each of its decisions with `DeadlineExceeded` (its
   * reply, should it come later, is ignored; Redis may still have applied it). One timer per call, not per
   * decision. The deadline gives the reply one more turn of the event loop: timers run before I/O in a turn, so a
   * reply already waiting on the socket while the process was busy is read before it counts as late. Default: none.
   */
  deadlineMs?: number;
  /** Called once per script call with its duration in ms (until its reply, its error or its deadline). */
  onScriptCall?: (ms: number) => void;
  /**
   * Runs every script call, e.g. through a circuit breaker: what it throws fails each decision of the call. Per call,
   * not per decision: a batch of decisions is one request to Redis, and one failure of it. The deadline is not inside
   * it (a late call is whatever Redis makes of it). Default: the call alone.
   */
  guard?: <T>(call: () => Promise<T>) => Promise<T>;
}

/** The most decisions one script call makes, by default. */
export const MAX_BATCH = 16;

/** What a rule array sends to the script on every call, worked out once per array. */
interface RulesPlan {
  /** Per rule `<algorithm code>:<rule name>:` (see keys.ts). */
  keyParts: string[];
  /** The number of rules, then every rule's ARGV (see the header of lua/limit.lua). */
  args: readonly string[];
  /** Whether a rule follows the calendar: its ARGV add the window's bounds, computed per call. */
  calendar: boolean;
}

/** Plans per resolved rule array (`resolveRequest` hands out the same array for the same rules). */
const plans = new WeakMap<readonly ResolvedRule[], RulesPlan>();

/** One decision waiting for its batch's script call. */
interface Pending {
  operation: Operation;
  amount: number;
  keys: string[];
  /** The rules' ARGV: the plan's own array unless a calendar window added its bounds. */
  ruleArgs: readonly (string | number)[];
  rules: readonly ResolvedRule[];
  /** Settles `consume`/`peek`/`refund` with the decision, `lease` with the lease. */
  resolve: (outcome: Decision | Lease) => void;
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

  consume(request: LimitRequest): Promise<Decision> {
    return this.run('consume', request, request.cost);
  }

  peek(request: LimitRequest): Promise<Decision> {
    return this.run('peek', request, request.cost);
  }

  refund(request: LimitRequest): Promise<Decision> {
    return this.run('refund', request, request.cost);
  }

  lease(request: LeaseRequest): Promise<Lease> {
    return this.run('lease', request, request.max);
  }

  /** The decision (a `Lease` for `lease`, else a `Decision`), from the batch's script call. */
  private run<T extends Decision | Lease>(operation: Operation, request: Omit<LimitRequest, 'cost'>, amount: number): Promise<T> {
    let rules: readonly ResolvedRule[];
    try {
      rules = resolveRequest(operation, request, amount);
    } catch (err) {
      return Promise.reject(err);
    }
    const injected = this.options.clock && Math.floor(this.options.clock.now());
    const prefix = tenantKeyPrefix(request.tenantId);
    const subject = request.ruleSubjects ? undefined : subjectHash(request.subject);
    const plan = planOf(rules);
    const keys: string[] = [];
    for (let i = 0; i < rules.length; i += 1) {
      keys.push(prefix + (plan.keyParts[i] as string) + (subject ?? subjectHash(subjectOf(request, i))));
    }
    const ruleArgs = plan.calendar ? withCalendarWindows(rules, injected ?? systemClock.now()) : plan.args;
    return new Promise<T>((resolve, reject) => {
      // Settled by `send` with a Decision or a Lease as `operation` says, which is what T is.
      const pending: Pending = { operation, amount, keys, ruleArgs, rules, resolve: resolve as (outcome: Decision | Lease) => void, reject };
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
    const { keys, args } = encodeBatch(injected, batch);
    let reply: number[];
    try {
      reply = replyNumbers(await this.timedCall(keys, args));
    } catch (err) {
      for (const pending of batch) pending.reject(err);
      return;
    }
    let offset = 1;
    for (const pending of batch) {
      try {
        const lease = parseDecision(reply, offset, pending.rules, pending.operation);
        pending.resolve(pending.operation === 'lease' ? lease : lease.decision);
      } catch (err) {
        pending.reject(err);
      }
      offset += 1 + 3 * pending.rules.length;
    }
  }

  /**
   * The script call, with `deadlineMs` (one timer per call; one more event-loop turn of grace, so that a reply
   * already waiting on the socket is read first; a late reply is ignored) and `onScriptCall` told its duration.
   */
  private timedCall(keys: string[], args: (string | number)[]): Promise<unknown> {
    const { deadlineMs, onScriptCall, guard } = this.options;
    const call = guard ? guard(() => limitScript.run(this.redis, keys, args)) : limitScript.run(this.redis, keys, args);
    if (deadlineMs === undefined && onScriptCall === undefined) return call;
    const started = performance.now();
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (finish: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        onScriptCall?.(performance.now() - started);
        finish();
      };
      const timer = deadlineMs === undefined ? undefined : setTimeout(() => setImmediate(() => settle(() => reject(new DeadlineExceeded(deadlineMs)))), deadlineMs);
      call.then(
        (reply) => settle(() => resolve(reply)),
        (err: unknown) => settle(() => reject(err)),
      );
    });
  }
}

/**
 * The KEYS and ARGV of one call for `batch` (see the header of lua/limit.lua). The same rules as the decision before:
 * the script reads them from there ('='); on the same keys as well (a tenant-wide decision of the same tenant, the
 * usual case in a batch), it reads those too ('=='); and the same operation and amount too: it makes the decision
 * before again ('+' and how many times).
 */
function encodeBatch(injected: number | undefined, batch: readonly Pending[]): { keys: string[]; args: (string | number)[] } {
  const keys: string[] = [];
  const args: (string | number)[] = [injected ?? '', injected === undefined ? 0 : INJECTED_CLOCK_TTL_EXTENSION_MS];
  let previous: Pending | undefined;
  let repeats = 0;
  for (const pending of batch) {
    const sameRules = previous !== undefined && previous.rules === pending.rules && sameArgs(previous.ruleArgs, pending.ruleArgs);
    const sameKeys = sameRules && sameArgs(previous!.keys, pending.keys);
    if (sameKeys && previous!.operation === pending.operation && previous!.amount === pending.amount) {
      repeats += 1;
      continue;
    }
    if (repeats > 0) args.push('+', repeats);
    repeats = 0;
    args.push(pending.operation, pending.amount);
    if (sameKeys) {
      args.push('==');
    } else {
      for (const key of pending.keys) keys.push(key);
      if (sameRules) args.push('=');
      else for (const arg of pending.ruleArgs) args.push(arg);
    }
    previous = pending;
  }
  if (repeats > 0) args.push('+', repeats);
  return { keys, args };
}

function planOf(rules: readonly ResolvedRule[]): RulesPlan {
  let plan = plans.get(rules);
  if (!plan) {
    plan = {
      keyParts: rules.map(ruleKeyPart),
      args: [String(rules.length), ...rules.flatMap(ruleArgs)],
      calendar: rules.some((rule) => rule.calendar),
    };
    plans.set(rules, plan);
  }
  return plan;
}

/** The rules' ARGV with each calendar window's bounds, computed from `callerNow` (see lua/limit.lua). */
function withCalendarWindows(rules: readonly ResolvedRule[], callerNow: number): (string | number)[] {
  const args: (string | number)[] = [String(rules.length)];
  for (const rule of rules) {
    for (const arg of ruleArgs(rule)) args.push(arg);
    if (rule.calendar) {
      const windows = calendarWindowsFrom(rule.calendar, callerNow - CALENDAR_SKEW_MS);
      args.push(windows.start, windows.end, windows.nextEnd);
    }
  }
  return args;
}

function sameArgs(a: readonly (string | number)[], b: readonly (string | number)[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

/** The ARGV of a rule but a calendar window's bounds (see the header of lua/limit.lua; exported for bench/). */
export function ruleArgs(rule: ResolvedRule): string[] {
  const code = ALGORITHM_CODES[rule.algorithm];
  if (BUCKET_ALGORITHMS.includes(rule.algorithm)) {
    // The widest number the bucket stores: its parts when full, or (GCRA) a remainder below the rate.
    const widest = rule.algorithm === 'gcra' ? rule.rate - 1 : rule.capacity * rule.unit;
    return [code, String(rule.rate), String(rule.unit), String(rule.capacity), packPattern(widest, 2)];
  }
  const args = [code, String(rule.limit), rule.calendar ? '0' : String(rule.windowMs)];
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

/**
 * The integers of the script's reply: one string of integers separated by single spaces (see lua/limit.lua), read
 * without a string per number; anything else is not a reply of this script.
 */
function replyNumbers(reply: unknown): number[] {
  if (typeof reply !== 'string' || reply.length === 0) unexpected(reply);
  const numbers: number[] = [];
  let value = 0;
  let sign = 1;
  let digits = 0;
  for (let i = 0; i <= reply.length; i += 1) {
    const c = i < reply.length ? reply.charCodeAt(i) : SPACE;
    if (c >= DIGIT_0 && c <= DIGIT_9) {
      value = value * 10 + (c - DIGIT_0);
      digits += 1;
    } else if (c === SPACE && digits > 0) {
      numbers.push(sign * value);
      value = 0;
      sign = 1;
      digits = 0;
    } else if (c === MINUS && digits === 0 && sign === 1) {
      sign = -1;
    } else {
      unexpected(reply);
    }
  }
  return numbers;
}

const SPACE = 0x20;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

/** The decision at `offset` of the script's reply numbers (after `nowMs` at 0; see lua/limit.lua). */
function parseDecision(reply: readonly number[], offset: number, rules: readonly ResolvedRule[], operation: Operation): Lease {
  if (reply.length < offset + 1 + 3 * rules.length) unexpected(reply);
  const granted = reply[offset] as number;
  const allowed = granted > 0;
  const numbers: RuleNumbers[] = [];
  for (let i = 0, o = offset + 1; i < rules.length; i += 1, o += 3) {
    const wait = reply[o + 2] as number;
    numbers.push({ remaining: reply[o] as number, resetMs: reply[o + 1] as number, retryAfterMs: allowed ? 0 : wait, delayMs: allowed ? wait : 0 });
  }
  return { granted: operation === 'lease' ? granted : 0, decision: toDecision(reply[0] as number, allowed, rules, numbers) };
}

function unexpected(reply: unknown): never {
  throw new Error(`limit.lua: unexpected reply ${JSON.stringify(reply)}`);
}
