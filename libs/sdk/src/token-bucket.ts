import { ErrorCode } from '@tollgate/domain/wire';
import { type BackoffOptions, fullJitterDelay } from './backoff';
import { type Clock, systemClock } from './clock';
import { TollgateError } from './errors';
import { retryAfterMs } from './retry-after';

export interface TokenBucketOptions {
  /** The most units available at once (the burst). */
  capacity: number;
  /** Units added per second, up to `capacity`. */
  refillPerSecond: number;
  /** Default: the wall clock and real timers. */
  clock?: Clock;
  /** The window over which `stats().outgoingPerSecond` is measured; default 10 s. */
  rateWindowMs?: number;
}

export interface AcquireOptions {
  /** Cancels the wait: `acquire` rejects with the signal's reason and takes nothing. */
  signal?: AbortSignal;
}

export interface TokenBucketStats {
  /** Units available now. */
  available: number;
  /** Callers waiting. */
  queued: number;
  /** Acquisitions that had to wait, and how long they waited in total and the last one. */
  waits: number;
  totalWaitMs: number;
  lastWaitMs: number;
  /** Until when a `Retry-After` holds every caller back (0 when none). */
  pausedUntil: number;
  /** Units actually taken per second over the last `rateWindowMs`. */
  outgoingPerSecond: number;
}

interface Waiter {
  amount: number;
  since: number;
  resolve: (waitedMs: number) => void;
  reject: (reason: unknown) => void;
}

const RATE_SLOTS = 10;

/**
 * A client-side token bucket for calling someone else's API politely: `acquire(n)` resolves when `n` units
 * are available (first come, first served, so a large request is not starved by small ones) and takes them.
 * A server's 429 with `Retry-After` pauses every caller until then and empties the bucket (`onRateLimited`);
 * `fetch()` wraps a fetch with all of it plus retries with exponential backoff and full jitter. In any interval
 * of t ms at most `capacity + refillPerSecond × t / 1000` units are taken.
 */
export class TokenBucket {
  private readonly capacity: number;
  private readonly perMs: number;
  private readonly clock: Clock;
  private tokens: number;
  private last: number;
  private pausedUntil = 0;
  private readonly queue: Waiter[] = [];
  private pump?: AbortController;
  private readonly wait = { waits: 0, totalWaitMs: 0, lastWaitMs: 0 };
  private readonly slotMs: number;
  private readonly slots = new Array<number>(RATE_SLOTS).fill(0);
  private slotIndex = 0;
  private slotStart: number;
  private readonly started: number;

  constructor(options: TokenBucketOptions) {
    if (!(options.capacity > 0) || !Number.isFinite(options.capacity)) throw new RangeError('capacity must be a positive number');
    if (!(options.refillPerSecond > 0) || !Number.isFinite(options.refillPerSecond)) throw new RangeError('refillPerSecond must be a positive number');
    this.capacity = options.capacity;
    this.perMs = options.refillPerSecond / 1000;
    this.clock = options.clock ?? systemClock;
    this.last = this.clock.now();
    this.tokens = this.capacity;
    this.slotMs = (options.rateWindowMs ?? 10_000) / RATE_SLOTS;
    this.slotStart = this.last;
    this.started = this.last;
  }

  /**
   * Takes `amount` units, waiting until they are available; resolves with the milliseconds waited. An amount
   * above the capacity could never be served: it is refused at once (`cost_exceeds_capacity`), never waited on.
   */
  acquire(amount = 1, options: AcquireOptions = {}): Promise<number> {
    if (!(amount > 0) || !Number.isFinite(amount)) {
      return Promise.reject(new TollgateError(ErrorCode.VALIDATION_FAILED, 'amount must be a positive number', { field: 'amount' }));
    }
    if (amount > this.capacity) {
      const message = `amount ${amount} exceeds the bucket's capacity of ${this.capacity}; it could never be served`;
      return Promise.reject(new TollgateError(ErrorCode.COST_EXCEEDS_CAPACITY, message, { field: 'amount' }));
    }
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const now = this.clock.now();
    this.refill(now);
    if (this.queue.length === 0 && now >= this.pausedUntil && this.tokens >= amount) {
      this.take(amount, now);
      return Promise.resolve(0);
    }
    return new Promise<number>((resolve, reject) => {
      const waiter: Waiter = { amount, since: now, resolve, reject };
      if (signal) {
        const onAbort = () => {
          const at = this.queue.indexOf(waiter);
          if (at < 0) return;
          this.queue.splice(at, 1);
          if (at === 0) this.wake();
          reject(signal.reason);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        waiter.resolve = (ms) => {
          signal.removeEventListener('abort', onAbort);
          resolve(ms);
        };
      }
      this.queue.push(waiter);
      if (this.queue.length === 1) this.wake();
    });
  }

  /**
   * The server answered 429: hold every caller back until its `Retry-After` (seconds or an HTTP-date; a
   * number is seconds) and restart from an empty bucket. Without a usable value, for `fallbackMs`.
   */
  onRateLimited(retryAfter: string | number | Date | null | undefined, fallbackMs = 1_000): void {
    const now = this.clock.now();
    const delay = retryAfterMs(retryAfter, now) ?? fallbackMs;
    this.refill(now);
    this.tokens = 0;
    this.pausedUntil = Math.max(this.pausedUntil, now + delay);
    this.wake();
  }

  /**
   * `fetch` through the bucket: each attempt takes one unit; a 429 or 503 is retried up to `retries` times
   * after `max(Retry-After, full-jitter backoff)`, and a 429's `Retry-After` slows every caller of this
   * bucket. A network error is not retried (the server may have acted on the request). The last answer
   * is returned as is.
   */
  fetch(input: string | URL | Request, init: RequestInit = {}, options: RetryOptions = {}): Promise<Response> {
    return fetchWithRetries(this, this.clock, input, init, options);
  }

  stats(): TokenBucketStats {
    const now = this.clock.now();
    this.refill(now);
    this.rotateSlots(now);
    const elapsed = Math.min(now - this.started, now - this.slotStart + this.slotMs * (RATE_SLOTS - 1));
    const taken = this.slots.reduce((a, b) => a + b, 0);
    return {
      available: this.tokens,
      queued: this.queue.length,
      ...this.wait,
      pausedUntil: this.pausedUntil > now ? this.pausedUntil : 0,
      outgoingPerSecond: elapsed > 0 ? (taken * 1000) / elapsed : 0,
    };
  }

  private refill(now: number): void {
    if (now > this.last) {
      this.tokens = Math.min(this.capacity, this.tokens + (now - this.last) * this.perMs);
      this.last = now;
    }
  }

  private take(amount: number, now: number): void {
    this.tokens -= amount;
    this.rotateSlots(now);
    this.slots[this.slotIndex]! += amount;
  }

  /** Moves the ring of per-slot counts on to the slot holding `now`, clearing the slots passed. */
  private rotateSlots(now: number): void {
    const steps = Math.floor((now - this.slotStart) / this.slotMs);
    if (steps <= 0) return;
    for (let i = 0; i < Math.min(steps, RATE_SLOTS); i += 1) {
      this.slotIndex = (this.slotIndex + 1) % RATE_SLOTS;
      this.slots[this.slotIndex] = 0;
    }
    this.slotStart += steps * this.slotMs;
  }

  /** (Re)starts the loop that serves the queue in order; one loop at a time. */
  private wake(): void {
    this.pump?.abort();
    if (this.queue.length === 0) return;
    const pump = new AbortController();
    this.pump = pump;
    void this.serve(pump.signal);
  }

  private async serve(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const head = this.queue[0];
      if (!head) return;
      const now = this.clock.now();
      this.refill(now);
      let delay: number;
      if (now < this.pausedUntil) delay = this.pausedUntil - now;
      else if (this.tokens >= head.amount) {
        this.queue.shift();
        this.take(head.amount, now);
        const waited = now - head.since;
        this.wait.waits += 1;
        this.wait.totalWaitMs += waited;
        this.wait.lastWaitMs = waited;
        head.resolve(waited);
        continue;
      } else delay = Math.ceil((head.amount - this.tokens) / this.perMs);
      try {
        await this.clock.sleep(Math.max(1, delay), signal);
      } catch {
        return;
      }
    }
  }
}

export interface RetryOptions extends BackoffOptions {
  /** Retries after a 429 or 503; default 3. */
  retries?: number;
  /** Default `Math.random`. */
  random?: () => number;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
}

const RETRY_STATUSES = new Set([429, 503]);

async function fetchWithRetries(bucket: TokenBucket, clock: Clock, input: string | URL | Request, init: RequestInit, options: RetryOptions): Promise<Response> {
  const doFetch = options.fetch ?? globalThis.fetch;
  const retries = options.retries ?? 3;
  const signal = init.signal ?? undefined;
  for (let attempt = 0; ; attempt += 1) {
    await bucket.acquire(1, { signal });
    const res = await doFetch(input, init);
    if (!RETRY_STATUSES.has(res.status)) return res;
    const header = res.headers.get('retry-after');
    const serverDelay = retryAfterMs(header, clock.now());
    if (res.status === 429) bucket.onRateLimited(header, fullJitterDelay(attempt, options, options.random));
    if (attempt >= retries) return res;
    await res.body?.cancel();
    await clock.sleep(Math.max(serverDelay ?? 0, fullJitterDelay(attempt, options, options.random)), signal);
  }
}
