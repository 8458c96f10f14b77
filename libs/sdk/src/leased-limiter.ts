import type { CheckResult, EnforcementMode, LeaseResult } from '@tollgate/domain/wire';
import type { CallOptions, CheckInput, LeaseInput } from './client';
import { type Clock, systemClock } from './clock';
import { TollgateError } from './errors';

/** What is limited locally: a check without its cost. */
export type LeaseTarget = Omit<CheckInput, 'cost'>;

/** The two calls the limiter makes (a `TollgateClient` has them). */
export interface LeaseSource {
  lease(input: LeaseInput, options?: CallOptions): Promise<LeaseResult>;
  refund(input: CheckInput, options?: CallOptions): Promise<CheckResult>;
}

export interface LeasedLimiterOptions {
  client: LeaseSource;
  /** Units asked for per lease (`max`). A larger lease means fewer calls and a larger overshoot bound. */
  leaseSize: number;
  /** Lease again, ahead of need, when this many units or fewer are left; default a quarter of `leaseSize`. */
  refillAt?: number;
  /**
   * Unused units are refunded and dropped this long after their lease, or when the first limit of the
   * lease resets if that comes sooner (a window's units are not carried into the next). Default 5 s.
   */
  leaseTtlMs?: number;
  /** How often expired leases of idle keys are refunded; default 1 s; 0 = only by `sweep()`. */
  sweepEveryMs?: number;
  /** Default `Date.now`. */
  clock?: Pick<Clock, 'now'>;
  /** Failures of calls made in the background (leases ahead of need, refunds); default: ignored. */
  onBackgroundError?: (err: unknown) => void;
}

/** A local decision. Allowed decisions are shared objects: do not mutate them. */
export interface LocalDecision {
  readonly allowed: boolean;
  readonly retryAfterMs: number;
  readonly mode: EnforcementMode;
  /** Decided without Tollgate (it failed open): no limit is known. */
  readonly degraded?: boolean;
  /** Why: a refusal's reason as the API gave it (REFUSAL_REASONS), or `tollgate_unavailable` for a fail-open pass. */
  readonly reason?: CheckResult['reason'];
}

interface Lease {
  remaining: number;
  readonly expiresAt: number;
  readonly decision: LocalDecision;
  /** Granted by a fail-open client: nothing was charged, so nothing is refunded. */
  readonly degraded: boolean;
}

interface Entry {
  readonly target: LeaseTarget;
  /** Oldest first; spent in that order. Usually one, two while a lease taken ahead of need is unused. */
  leases: Lease[];
  /** At most one lease in flight per key; resolves to its error or its denial, if any. */
  inFlight?: Promise<TollgateError | LocalDecision | undefined>;
  denial?: { until: number; mode: EnforcementMode; reason?: CheckResult['reason'] };
  failure?: { until: number; error: TollgateError };
}

const FAILURE_PAUSE_MS = 1_000;

/**
 * Spends units leased from Tollgate in process, without a network call per decision. Per target (tenant or
 * key, endpoint, subject, ip) it leases `leaseSize` units, spends them, leases again ahead of need (one lease in
 * flight per target) and refunds what is left when a lease expires or on `close()`. It never admits more
 * than it was granted; the price is that units held here are unavailable to other nodes until spent or
 * refunded. A denial is kept until its `retryAfterMs` passes, so a denied target costs no calls either.
 */
export class LeasedLimiter {
  private readonly entries = new Map<string, Entry>();
  private readonly refunds = new Set<Promise<void>>();
  private readonly client: LeaseSource;
  private readonly leaseSize: number;
  private readonly refillAt: number;
  private readonly leaseTtlMs: number;
  private readonly clock: Pick<Clock, 'now'>;
  private readonly onBackgroundError: (err: unknown) => void;
  private readonly sweeper?: NodeJS.Timeout;
  private closed = false;
  private readonly counts = { leases: 0, granted: 0, spent: 0, refunded: 0 };

  constructor(options: LeasedLimiterOptions) {
    if (!Number.isInteger(options.leaseSize) || options.leaseSize < 1) throw new RangeError('leaseSize must be a positive integer');
    this.client = options.client;
    this.leaseSize = options.leaseSize;
    this.refillAt = options.refillAt ?? Math.floor(options.leaseSize / 4);
    this.leaseTtlMs = options.leaseTtlMs ?? 5_000;
    this.clock = options.clock ?? systemClock;
    this.onBackgroundError = options.onBackgroundError ?? (() => undefined);
    const every = options.sweepEveryMs ?? 1_000;
    if (every > 0) this.sweeper = setInterval(() => this.sweep(), every).unref();
  }

  /**
   * Decides locally when it can: a decision, or `undefined` when units must be leased first (a lease is then
   * started; `take` waits for it). Throws the client's `TollgateError` while Tollgate fails (fail-closed), and
   * an `Error` once closed.
   */
  tryTake(target: LeaseTarget, cost = 1): LocalDecision | undefined {
    if (this.closed) throw new Error('LeasedLimiter is closed');
    const key = keyOf(target);
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { target, leases: [] };
      this.entries.set(key, entry);
    }
    const now = this.clock.now();
    const leases = entry.leases;
    while (leases.length > 0 && leases[0]!.expiresAt <= now) this.expire(entry, leases.shift()!);
    let available = 0;
    for (let i = 0; i < leases.length; i += 1) available += leases[i]!.remaining;
    if (available >= cost) {
      const decision = this.spend(leases, cost);
      if (available - cost <= this.refillAt && !entry.inFlight) this.startLease(entry, this.leaseSize);
      return decision;
    }
    const denial = entry.denial;
    if (denial && now < denial.until) return denied(denial.until - now, denial.mode, denial.reason);
    const failure = entry.failure;
    if (failure && now < failure.until) throw failure.error;
    if (!entry.inFlight) this.startLease(entry, Math.max(this.leaseSize, cost - available));
    return undefined;
  }

  /** Decides, waiting for a lease when no units are left here. */
  take(target: LeaseTarget, cost = 1): Promise<LocalDecision> {
    try {
      const decision = this.tryTake(target, cost);
      if (decision) return Promise.resolve(decision);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.takeAfterLease(target, cost);
  }

  private async takeAfterLease(target: LeaseTarget, cost: number): Promise<LocalDecision> {
    for (;;) {
      const outcome = await this.entries.get(keyOf(target))?.inFlight;
      if (outcome instanceof TollgateError) throw outcome;
      if (outcome) return outcome;
      const decision = this.tryTake(target, cost);
      if (decision) return decision;
    }
  }

  /** Refunds and drops expired leases, and forgets idle targets. Runs every `sweepEveryMs`. */
  sweep(): void {
    const now = this.clock.now();
    for (const [key, entry] of this.entries) {
      while (entry.leases.length > 0 && entry.leases[0]!.expiresAt <= now) this.expire(entry, entry.leases.shift()!);
      if (entry.denial && now >= entry.denial.until) entry.denial = undefined;
      if (entry.failure && now >= entry.failure.until) entry.failure = undefined;
      if (entry.leases.length === 0 && !entry.inFlight && !entry.denial && !entry.failure) this.entries.delete(key);
    }
  }

  /** Stops deciding (waiting `take`s reject) and sweeping, waits for leases in flight, refunds every unspent unit. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.sweeper) clearInterval(this.sweeper);
    await Promise.all([...this.entries.values()].map((e) => e.inFlight));
    for (const entry of this.entries.values()) for (const lease of entry.leases.splice(0)) this.expire(entry, lease);
    this.entries.clear();
    await Promise.all(this.refunds);
  }

  /** Counters since start: leases taken and units granted, spent locally and refunded. */
  stats(): { targets: number; leases: number; granted: number; spent: number; refunded: number; held: number } {
    let held = 0;
    for (const e of this.entries.values()) for (const l of e.leases) held += l.remaining;
    return { targets: this.entries.size, ...this.counts, held };
  }

  private spend(leases: Lease[], cost: number): LocalDecision {
    this.counts.spent += cost;
    let first = leases[0]!;
    const decision = first.decision;
    while (cost > first.remaining) {
      cost -= first.remaining;
      leases.shift();
      first = leases[0]!;
    }
    first.remaining -= cost;
    if (first.remaining === 0) leases.shift();
    return decision;
  }

  private startLease(entry: Entry, max: number): void {
    entry.failure = undefined;
    const request = { ...entry.target, max };
    entry.inFlight = this.client.lease(request).then(
      (result) => {
        entry.inFlight = undefined;
        return this.accept(entry, result);
      },
      (err: unknown) => {
        entry.inFlight = undefined;
        const error = err instanceof TollgateError ? err : new TollgateError('internal', 'lease failed', { cause: err, unavailable: true, status: 503 });
        entry.failure = { until: this.clock.now() + (error.retryAfterMs ?? FAILURE_PAUSE_MS), error };
        this.onBackgroundError(error);
        return error;
      },
    );
  }

  /** Adds the granted units, or keeps the denial (and returns it). */
  private accept(entry: Entry, result: LeaseResult): LocalDecision | undefined {
    const now = this.clock.now();
    const degraded = result.degraded === true;
    const granted = degraded || result.allowed || result.mode === 'shadow' ? result.granted : 0;
    if (!degraded) {
      this.counts.leases += 1;
      this.counts.granted += granted;
    }
    if (granted <= 0) {
      const retryAfterMs = Math.max(0, result.retryAfterMs);
      entry.denial = { until: now + retryAfterMs, mode: result.mode, reason: result.reason };
      return denied(retryAfterMs, result.mode, result.reason);
    }
    entry.denial = undefined;
    const lease: Lease = {
      remaining: granted,
      expiresAt: now + this.lifetime(result),
      degraded,
      decision: Object.freeze({ allowed: true, retryAfterMs: 0, mode: result.mode, ...(degraded ? { degraded: true, reason: result.reason } : {}) }),
    };
    if (this.closed) this.expire(entry, lease);
    else entry.leases.push(lease);
    return undefined;
  }

  /** The lease's units live until the ttl or the first reset of its limits, whichever comes first. */
  private lifetime(result: LeaseResult): number {
    let ms = this.leaseTtlMs;
    for (const limit of result.limits) if (limit.resetMs > 0 && limit.resetMs < ms) ms = limit.resetMs;
    return ms;
  }

  private expire(entry: Entry, lease: Lease): void {
    const units = lease.remaining;
    lease.remaining = 0;
    if (units <= 0 || lease.degraded) return;
    this.counts.refunded += units;
    const refund = this.client
      .refund({ ...entry.target, cost: units })
      .then(() => undefined, this.onBackgroundError)
      .finally(() => this.refunds.delete(refund));
    this.refunds.add(refund);
  }
}

function denied(retryAfterMs: number, mode: EnforcementMode, reason: CheckResult['reason']): LocalDecision {
  return reason === undefined ? { allowed: false, retryAfterMs, mode } : { allowed: false, retryAfterMs, mode, reason };
}

function keyOf(t: LeaseTarget): string {
  return `${t.tenant ?? ''}\n${t.key ?? ''}\n${t.endpoint}\n${t.subject ?? ''}\n${t.ip ?? ''}`;
}
