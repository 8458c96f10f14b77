import { join } from 'node:path';
import { systemClock } from '../clock';
import type { Clock, Decision, Lease, LeaseRequest, Limiter, LimitRequest } from '../contract';
import { resolveRequest, subjectOf, type Operation, type ResolvedRule } from '../rules';
import { subjectHash, tenantKeyPrefix } from './keys';
import { DeadlineExceeded } from '../errors';
import { LuaScript, type ScriptClient } from '@tollgate/lua-script';
import { decisionLength, encodeBatch, parseDecision, planOf, replyNumbers, type ScriptDecision, withCalendarWindows } from './protocol';

export const limitScript = LuaScript.load(join(__dirname, '..', 'lua'), 'limit');

export interface RedisEngineOptions {
  /**
   * Tests only: decide on this clock (passed to the script) instead of Redis `TIME`, so that Redis and the
   * memory engine can be driven through the same instants. Keys then live
   * `INJECTED_CLOCK_TTL_EXTENSION_MS` (protocol.ts) longer than they need.
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

/** One decision waiting for its batch's script call. */
interface Pending extends ScriptDecision {
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
    const { tally } = request;
    if (tally && !tally.key.startsWith(prefix)) return Promise.reject(new Error('a tally must count into a key of the tenant (its hash tag)'));
    const subject = request.ruleSubjects ? undefined : subjectHash(request.subject);
    const plan = planOf(rules);
    const keys: string[] = [];
    for (let i = 0; i < rules.length; i += 1) {
      keys.push(prefix + (plan.keyParts[i] as string) + (subject ?? subjectHash(subjectOf(request, i))));
    }
    const ruleArgs = plan.calendar ? withCalendarWindows(rules, injected ?? systemClock.now()) : plan.args;
    return new Promise<T>((resolve, reject) => {
      // Settled by `send` with a Decision or a Lease as `operation` says, which is what T is.
      const pending: Pending = { operation, amount, tally, keys, ruleArgs, rules, resolve: resolve as (outcome: Decision | Lease) => void, reject };
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
      offset += decisionLength(pending.rules);
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
