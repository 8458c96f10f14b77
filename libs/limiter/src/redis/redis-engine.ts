import { join } from 'node:path';
import { systemClock } from '../clock';
import type { Clock, Decision, Lease, LeaseRequest, Limiter, LimitRequest } from '../contract';
import type { Operation, ResolvedRule } from '../rules';
import { keyPrefixOf, subjectOf, validateRequest } from '../prepared-rules';
import { subjectHash } from './keys';
import { DeadlineExceeded, InvalidLimitRequestError, ReplicaAckMissing } from '../errors';
import { type AckPipelineClient, LuaScript, type ScriptClient } from '@tollgate/lua-script';
import { type Compensation, compensationOf } from './late-reply';
import { argsAt, decisionLength, encodeBatch, expiredAt, minuteOf, parseDecision, pushRuleKeys, redisNowOf, replyNumbers, type ScriptDecision } from './protocol';

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
   * A script call not answered within this many ms fails each of its decisions with `DeadlineExceeded`. One timer per
   * call, not per decision. The deadline gives the reply one more turn of the event loop: timers run before I/O in a
   * turn, so a reply already waiting on the socket while the process was busy is read before it counts as late.
   * One request, one decision (docs/adr/0021-one-request-one-decision.md): the call carries an expiry on Redis's
   * clock, this deadline after it was sent (once a reply has shown where Redis's clock stands), after which Redis
   * runs it without effect (a call queued behind a slow command, resent after a reconnect or a failover); a reply
   * that comes late anyway is undone by one more call: what it counted is taken back, what it charged given back
   * unless the caller answered 'allowed' (`DeadlineExceeded.answered`). The expiry is never later than the client's
   * own command timeout (ioredis `commandTimeout`) either: a call the client gave up on has no reply to undo it by,
   * and a cluster client may still send it after a failover. Default: none.
   */
  deadlineMs?: number;
  /**
   * Told what became of each reply that came after its deadline: `compensated` (undone, or nothing to undo),
   * `expired` (it ran after its expiry and did nothing), `failed` (the undoing call failed or expired: counted twice),
   * `unknown` (no reply, e.g. the connection dropped: a run after the expiry did nothing, one before it stays).
   */
  onLateReply?: (outcome: LateReplyOutcome) => void;
  /** Called once per script call with its duration in ms (until its reply, its error or its deadline). */
  onScriptCall?: (ms: number) => void;
  /**
   * Runs every script call, e.g. through a circuit breaker: what it throws fails each decision of the call. Per call,
   * not per decision: a batch of decisions is one request to Redis, and one failure of it. The deadline is not inside
   * it (a late call is whatever Redis makes of it). `keyPrefix` is the tenant's key prefix (one hash tag: on a Redis
   * Cluster, one slot and the primary that owns it), so that a guard can keep one breaker per node. Default: the call
   * alone.
   */
  guard?: <T>(call: () => Promise<T>, keyPrefix: string) => Promise<T>;
  /**
   * Whether a fixed window also reads the counter earlier versions kept (`<rule key>:<window start>`), and keeps it
   * in step once a node of an earlier version made it in the window, so that nodes of both versions deciding at the
   * same time (a rolling upgrade) see each other's charges
   * (docs/adr/0024-every-key-the-limit-script-touches-is-declared.md). With no earlier node running it costs a
   * second key in the `MGET` that reads the window and writes nothing more. False: one `GET`. Default true.
   */
  earlierCounters?: boolean;
  /**
   * Where decisions asked with `replicaAck` go: each of their script calls runs on one of `clients` in turn
   * (connections only they use: `WAIT` blocks a connection until it returns, so calls on one connection wait for each
   * other's acknowledgements) followed by `WAIT replicas timeoutMs` in one pipeline, and is answered from Redis only
   * when `replicas` acknowledged its writes; otherwise each of its decisions fails with `ReplicaAckMissing` and the call
   * is undone as a late reply is. Their batches are their own. Without it, `replicaAck` is refused.
   */
  replicaAck?: { clients: readonly AckPipelineClient[]; replicas: number; timeoutMs: number };
  /**
   * Whose clock runs a call of the tenant of `keyPrefix`: on a Redis Cluster the primary that owns its slot (as the
   * client knows it), on a single Redis the one server. A tenant without an estimate of Redis's clock of its own (its
   * first call, or a minute after its last) takes its node's, learnt from every reply of that node, so that its calls
   * carry an expiry too. Default: none (a tenant's own estimate only).
   */
  clockOf?: (keyPrefix: string) => string | undefined;
}

export type LateReplyOutcome = 'compensated' | 'expired' | 'failed' | 'unknown';

/** The most decisions one script call makes, by default. */
export const MAX_BATCH = 16;

/** One decision waiting for its batch's script call. */
interface Pending extends ScriptDecision {
  /** The tenant's key prefix: one hash tag, one slot, whose Redis clock `RedisClock` learns. */
  prefix: string;
  /** Answered only once a replica holds the call's writes (`LimitRequest.replicaAck`). */
  replicaAck?: true;
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
  /** Where Redis's clock stands, for the expiry of each call. */
  private readonly redisClock = new RedisClock();
  /** The `replicaAck` connection the next waiting call takes. */
  private nextAckClient = 0;
  /** How long after it is sent a call may still act on Redis: the deadline, or the client's patience if shorter. */
  private readonly expiryMs: number | undefined;
  private readonly ackExpiryMs: number | undefined;

  constructor(
    private readonly redis: ScriptClient,
    private readonly options: RedisEngineOptions = {},
  ) {
    const { deadlineMs, replicaAck } = options;
    this.expiryMs = deadlineMs === undefined ? undefined : Math.min(deadlineMs, commandTimeoutOf(redis) ?? Infinity);
    this.ackExpiryMs = deadlineMs === undefined ? undefined : Math.min(deadlineMs, ...(replicaAck?.clients ?? []).map((c) => commandTimeoutOf(c) ?? Infinity));
  }

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
      rules = validateRequest(operation, request, amount);
    } catch (err) {
      return Promise.reject(err);
    }
    if (request.replicaAck && !this.options.replicaAck?.clients.length) return Promise.reject(new InvalidLimitRequestError('this engine has no connection that waits for replicas', 'replicaAck'));
    const prepared = request.rules;
    const injected = this.options.clock && Math.floor(this.options.clock.now());
    const prefix = keyPrefixOf(prepared, request.tenantId);
    const { tally } = request;
    if (tally && !tally.key.startsWith(prefix)) return Promise.reject(new Error('a tally must count into a key of the tenant (its hash tag)'));
    // A rule that counts the tenant as a whole has its key prepared (for the prepared tenant); a subject is hashed.
    const wholeTenantKeys = prepared.tenant?.id === request.tenantId ? prepared.tenant.wholeTenantKeys : undefined;
    const requestSubject = request.ruleSubjects || request.subject === undefined ? undefined : subjectHash(request.subject);
    const keys: string[] = [];
    const estimate = this.redisNow(injected, prefix, performance.now());
    const earlierCounters = this.options.earlierCounters ?? true;
    for (let i = 0; i < rules.length; i += 1) {
      const subject = subjectOf(request, i);
      const key =
        subject === undefined
          ? (wholeTenantKeys?.[i] ?? prefix + (prepared.keyParts[i] as string) + subjectHash(undefined))
          : prefix + (prepared.keyParts[i] as string) + (requestSubject ?? subjectHash(subject));
      pushRuleKeys(keys, key, rules[i] as ResolvedRule, estimate, prepared.calendars[i], earlierCounters);
    }
    const ruleArgs = argsAt(prepared, injected ?? systemClock.now());
    return new Promise<T>((resolve, reject) => {
      // Settled by `send` with a Decision or a Lease as `operation` says, which is what T is.
      const pending: Pending = { operation, amount, tally, keys, ruleArgs, rules, prepared, prefix, resolve: resolve as (outcome: Decision | Lease) => void, reject };
      if (request.shadowFrom !== undefined && (operation === 'consume' || operation === 'peek')) pending.shadowFrom = request.shadowFrom;
      if (request.replicaAck) pending.replicaAck = true;
      if (this.options.batch === false) return void this.send(injected, [pending]);
      // Decisions that wait for a replica share calls only with each other (`!` is in no key prefix).
      const batchKey = `${injected === undefined ? prefix : `${prefix}${injected}`}${request.replicaAck ? '!' : ''}`;
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
    const prefix = batch[0]?.prefix ?? '';
    const sentAt = performance.now();
    const node = this.options.clockOf?.(prefix);
    const ack = batch[0]?.replicaAck ? this.options.replicaAck : undefined;
    const expiryMs = ack ? this.ackExpiryMs : this.expiryMs;
    const expiresAt = expiryMs === undefined ? undefined : this.redisClock.redisTime(prefix, node, sentAt, expiryMs);
    const minute = minuteOf(this.redisNow(injected, prefix, sentAt, node));
    const { keys, args } = encodeBatch(injected, batch, expiresAt === undefined ? { minute } : { expiresAt, minute });
    const run = ack ? () => this.acknowledged(ack, keys, args) : () => limitScript.run(this.redis, keys, args);
    const call = this.options.guard ? this.options.guard(run, prefix) : run();
    let reply: number[];
    try {
      const raw = await this.timed(call, sentAt);
      if (raw === LATE) return this.late(call, injected, batch, sentAt, minute, node);
      if (raw instanceof Unacknowledged) return this.late(Promise.resolve(raw.reply), injected, batch, sentAt, minute, node, () => raw.error());
      reply = this.replyOf(raw, injected, prefix, sentAt, node);
    } catch (err) {
      for (const pending of batch) pending.reject(err);
      return;
    }
    let offset = 1;
    for (const pending of batch) {
      try {
        const lease = parseDecision(reply, offset, pending.rules, pending.operation, pending.shadowFrom);
        pending.resolve(pending.operation === 'lease' ? lease : lease.decision);
      } catch (err) {
        pending.reject(err);
      }
      offset += decisionLength(pending.rules);
    }
  }

  /**
   * Where Redis's clock stands (epoch ms) at `at` (performance.now()) for the tenant of `key` (its hash prefix): the
   * injected clock, else the estimate learnt from replies, else this process's clock. It names the keys that depend on
   * the time (a usage hash's minute, a fixed window's counter of earlier versions), which a call must declare; the
   * script decides on its own clock.
   */
  private redisNow(injected: number | undefined, prefix: string, at: number, node = this.options.clockOf?.(prefix)): number {
    return injected ?? this.redisClock.redisTime(prefix, node, at, 0) ?? systemClock.now();
  }

  /** The reply's integers, having learnt Redis's clock from it; a call that ran after its expiry did nothing. */
  private replyOf(raw: unknown, injected: number | undefined, prefix: string, sentAt: number, node: string | undefined): number[] {
    const expired = expiredAt(raw);
    if (expired !== undefined) {
      this.redisClock.learn(prefix, node, sentAt, expired);
      throw new DeadlineExceeded(this.options.deadlineMs ?? 0);
    }
    const reply = replyNumbers(raw);
    this.redisClock.learn(prefix, node, sentAt, redisNowOf(reply, injected !== undefined));
    return reply;
  }

  /**
   * The call missed its deadline: each decision fails with its own `DeadlineExceeded`, on which the caller says what it
   * answered instead. Should the reply still come (Redis ran the call before its expiry), what it charged and counted
   * is undone by one more call (late-reply.ts), once the callers have answered (their turn of the event loop).
   */
  private late(call: Promise<unknown>, injected: number | undefined, batch: Pending[], sentAt: number, minute: number, node: string | undefined, error = () => new DeadlineExceeded(this.options.deadlineMs ?? 0)): void {
    const errors = batch.map(error);
    batch.forEach((pending, i) => pending.reject(errors[i]));
    const prefix = batch[0]?.prefix ?? '';
    call.then(
      (raw) =>
        setImmediate(() => {
          let compensation: Compensation | undefined;
          try {
            // A call that waited for replicas and missed its deadline too is undone the same way.
            const reply = this.replyOf(raw instanceof Unacknowledged ? raw.reply : raw, injected, prefix, sentAt, node);
            compensation = compensationOf(reply, batch, errors.map((e) => e.answeredAllowed), injected ?? systemClock.now(), minute);
          } catch (err) {
            // Ran after its expiry: nothing to undo. Anything else is not a reply this engine can undo.
            return this.options.onLateReply?.(err instanceof DeadlineExceeded ? 'expired' : 'failed');
          }
          if (!compensation) return this.options.onLateReply?.('compensated');
          void this.compensate(injected, prefix, compensation);
        }),
      // The outcome is unknown (the connection dropped, a timeout): the expiry keeps any later run from acting.
      () => this.options.onLateReply?.('unknown'),
    );
  }

  /** Runs a late reply's compensation (not through the guard: it is owed whatever the circuit's state). */
  private async compensate(injected: number | undefined, prefix: string, compensation: Compensation): Promise<void> {
    const expiresAt = this.redisClock.redisTime(prefix, this.options.clockOf?.(prefix), performance.now(), COMPENSATION_EXPIRY_MS);
    const { keys, args } = encodeBatch(injected, compensation.refunds, { ...(expiresAt === undefined ? {} : { expiresAt }), ...(compensation.takeBack ? { takeBack: compensation.takeBack } : {}) });
    try {
      const raw = await limitScript.run(this.redis, keys, args);
      this.options.onLateReply?.(expiredAt(raw) === undefined ? 'compensated' : 'failed');
    } catch {
      this.options.onLateReply?.('failed');
    }
  }

  /** A call whose decisions wait for replicas: its reply, or `Unacknowledged` with it when too few replicas had its writes in time. */
  private async acknowledged(ack: NonNullable<RedisEngineOptions['replicaAck']>, keys: string[], args: (string | number)[]): Promise<unknown> {
    const client = ack.clients[this.nextAckClient++ % ack.clients.length] as AckPipelineClient;
    const { reply, replicas } = await limitScript.runAcknowledged(client, keys, args, ack.replicas, ack.timeoutMs);
    // A call that ran after its expiry wrote nothing: its reply says so, whatever WAIT says.
    if (replicas >= ack.replicas || expiredAt(reply) !== undefined) return reply;
    return new Unacknowledged(reply, () => new ReplicaAckMissing(ack.replicas, replicas, ack.timeoutMs));
  }

  /**
   * The script call's reply, or `LATE` once `deadlineMs` passed (one timer per call; one more event-loop turn of grace,
   * so that a reply already waiting on the socket is read first), with `onScriptCall` told its duration.
   */
  private timed(call: Promise<unknown>, started: number): Promise<unknown> {
    const { deadlineMs, onScriptCall } = this.options;
    if (deadlineMs === undefined && onScriptCall === undefined) return call;
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (finish: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        onScriptCall?.(performance.now() - started);
        finish();
      };
      const timer = deadlineMs === undefined ? undefined : setTimeout(() => setImmediate(() => settle(() => resolve(LATE))), deadlineMs);
      call.then(
        (reply) => settle(() => resolve(reply)),
        (err: unknown) => settle(() => reject(err)),
      );
    });
  }
}

/**
 * The client's command timeout in ms (ioredis `commandTimeout`; a cluster client's from its `redisOptions`), if it has
 * one: when it rejects a call, the call's reply is dropped, so nothing that call does later could be undone.
 */
function commandTimeoutOf(client: unknown): number | undefined {
  const { options } = client as { options?: { commandTimeout?: unknown; redisOptions?: { commandTimeout?: unknown } } };
  const ms = options?.commandTimeout ?? options?.redisOptions?.commandTimeout;
  return typeof ms === 'number' && ms > 0 ? ms : undefined;
}

/** What `timed` resolves to when the deadline passed first. */
const LATE = Symbol('late');

/** A reply of a call whose writes too few replicas acknowledged: undone like a late one, each decision failing with `error()`. */
class Unacknowledged {
  constructor(
    readonly reply: unknown,
    readonly error: () => ReplicaAckMissing,
  ) {}
}

/**
 * How long a compensation may take to run (on Redis's clock, from when it is sent): it is off the request path, but a
 * copy resent by the client after a reconnect must not give back twice.
 */
const COMPENSATION_EXPIRY_MS = 1_000;

/** A sample replaces a lower one once that is this old: a failover's new primary may keep another clock. */
const SAMPLE_WINDOW_MS = 2_000;
/** An estimate not refreshed for this long is dropped (the tenant's calls carry no expiry until the next reply). */
const ESTIMATE_TTL_MS = 60_000;
/** Hash tags whose estimate is kept (one per tenant: on a Redis Cluster each tag's slot has its primary's clock). */
const MAX_TAGS = 10_000;

/** Nodes whose clock estimate is kept (a Redis Cluster's primaries, past and present). */
const MAX_NODES = 64;

/**
 * Where Redis's clock stands against this process's monotonic clock (`performance.now()`), per tenant key prefix (one
 * hash tag: on a Redis Cluster each tag's slot has its primary's clock) and per node, so that a script call can carry
 * an expiry on Redis's clock (ARGV[4] of lua/limit.lua). Learnt from the Redis time every reply carries: a call ran
 * after it was sent, so `redis now - sent at` is never below the true offset, and the lowest recent sample is the
 * tightest such bound. An expiry computed from it is therefore never earlier than meant (a call in time is never
 * refused); it is later by at most that sample's wait before Redis ran it. A tag without an estimate of its own takes
 * its node's (every tag of a node shares its clock).
 */
class RedisClock {
  private readonly tags = new Offsets(MAX_TAGS);
  private readonly nodes = new Offsets(MAX_NODES);

  /** Redis ran a call of `tag` (on `node`), sent at `sentAt` (performance.now()), at `redisNow` (ms of its TIME). */
  learn(tag: string, node: string | undefined, sentAt: number, redisNow: number, now = performance.now()): void {
    this.tags.learn(tag, redisNow - sentAt, now);
    if (node !== undefined) this.nodes.learn(node, redisNow - sentAt, now);
  }

  /** Redis's time (integer ms) `afterMs` after `sentAt` on this process's clock, or undefined without an estimate. */
  redisTime(tag: string, node: string | undefined, sentAt: number, afterMs: number, now = performance.now()): number | undefined {
    const offset = this.tags.held(tag, now) ?? (node === undefined ? undefined : this.nodes.held(node, now));
    return offset === undefined ? undefined : Math.ceil(sentAt + offset + afterMs);
  }
}

/** The lowest recent offset samples by name (tag or node), at most `max` of them. */
class Offsets {
  /** Per name, the estimate and when it was learnt; the least recently learnt first (a Map keeps insertion order). */
  private readonly offsets = new Map<string, { offset: number; at: number }>();

  constructor(private readonly max: number) {}

  learn(name: string, sample: number, now: number): void {
    const held = this.offsets.get(name);
    if (held && now - held.at < ESTIMATE_TTL_MS && sample > held.offset && now - held.at < SAMPLE_WINDOW_MS) return;
    this.offsets.delete(name);
    this.offsets.set(name, { offset: sample, at: now });
    if (this.offsets.size > this.max) this.offsets.delete(this.offsets.keys().next().value as string);
  }

  /** The estimate of `name`, unless it was not refreshed for `ESTIMATE_TTL_MS`. */
  held(name: string, now: number): number | undefined {
    const held = this.offsets.get(name);
    return held && now - held.at < ESTIMATE_TTL_MS ? held.offset : undefined;
  }
}
