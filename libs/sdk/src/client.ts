import {
  type BatchCheckResult,
  type CheckRequest,
  type CheckResult,
  ErrorCode,
  type LeaseRequest,
  type LeaseResult,
  MAX_BATCH_CHECKS,
} from '@tollgate/domain/wire';
import { type BackoffOptions, fullJitterDelay } from './backoff';
import { TollgateError } from './errors';
import { retryAfterMs } from './retry-after';

/** What to do when Tollgate cannot decide (no answer in time, unreachable, 5xx): pass (degraded) or fail. */
export type FailMode = 'open' | 'closed';

export interface TollgateClientOptions {
  /** Where the Tollgate API listens, e.g. `http://tollgate:3000`. */
  baseUrl: string;
  /** A service key (`tg_…`). */
  serviceKey: string;
  /** Deadline of one call, retries included; default 1 s. */
  timeoutMs?: number;
  /**
   * `closed` (default): a call Tollgate cannot answer throws a `TollgateError` with `unavailable: true`.
   * `open`: it returns a pass marked `degraded: true`, with no limits and no headers (none are known).
   */
  onError?: FailMode;
  /**
   * Retries of a call Tollgate could not answer; default 0. A check, lease or batch that reached Tollgate but
   * whose answer was lost is charged again by a retry, and a refund given twice: raise this for peeks, or where
   * an occasional double charge is acceptable.
   */
  retries?: number;
  /** Delay between retries: exponential with full jitter (never less than a 503's `Retry-After`). */
  backoff?: BackoffOptions;
  /** Injectable for tests (jitter); default `Math.random`. */
  random?: () => number;
  /** Injectable for tests and other runtimes; defaults to the global fetch. */
  fetch?: typeof fetch;
}

/** Per-call overrides. */
export interface CallOptions {
  /** Cancels the call; it then rejects with the signal's reason (never fails open). */
  signal?: AbortSignal;
  timeoutMs?: number;
  onError?: FailMode;
}

/** The input of a check, peek or refund: `cost` defaults to 1 on the server. */
export type CheckInput = Omit<CheckRequest, 'cost'> & { cost?: number };
/** The input of a lease: take up to `max` units. */
export type LeaseInput = LeaseRequest;

/**
 * A typed client of the enforcement API. A denial is a value (`allowed: false`); errors are `TollgateError`s
 * with the API's stable `code`. Every call has a deadline; calls are not retried unless `retries` says so.
 */
export class TollgateClient {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly onError: FailMode;
  private readonly retries: number;
  private readonly random: () => number;
  private readonly fetch: typeof fetch;
  private readonly authorization: string;

  constructor(private readonly options: TollgateClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 1_000;
    this.onError = options.onError ?? 'closed';
    this.retries = options.retries ?? 0;
    this.random = options.random ?? Math.random;
    this.fetch = options.fetch ?? globalThis.fetch;
    this.authorization = `Bearer ${options.serviceKey}`;
  }

  /** May this request pass, at this cost? Charges the cost when allowed. */
  check(input: CheckInput, options?: CallOptions): Promise<CheckResult> {
    return this.call('/v1/check', input, options, degradedResult);
  }

  /** What `check` would answer now, without charging anything. */
  peek(input: CheckInput, options?: CallOptions): Promise<CheckResult> {
    return this.call('/v1/check/peek', input, options, degradedResult);
  }

  /** Gives `cost` back (the real cost was known after the fact, or leased units were not spent). */
  refund(input: CheckInput, options?: CallOptions): Promise<CheckResult> {
    return this.call('/v1/check/refund', input, options, degradedResult);
  }

  /**
   * Takes up to `max` units at once, to spend locally (see `LeasedLimiter`); `granted` is 0 when denied.
   * Failing open grants `max`, marked `degraded` (nothing was charged; do not refund it).
   */
  lease(input: LeaseInput, options?: CallOptions): Promise<LeaseResult> {
    return this.call('/v1/check/lease', input, options, () => ({ ...degradedResult(), granted: input.max }));
  }

  /** Up to `MAX_BATCH_CHECKS` checks in one call, each decided on its own; a bad check fails alone. */
  batch(checks: readonly CheckInput[], options?: CallOptions): Promise<BatchCheckResult> {
    if (checks.length === 0 || checks.length > MAX_BATCH_CHECKS) {
      const message = `must hold 1 to ${MAX_BATCH_CHECKS} checks`;
      return Promise.reject(new TollgateError(ErrorCode.VALIDATION_FAILED, message, { field: 'checks' }));
    }
    return this.call('/v1/check/batch', { checks }, options, () => ({ results: checks.map(degradedResult) }));
  }

  private async call<T>(path: string, body: unknown, options: CallOptions = {}, degraded: () => T): Promise<T> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    const payload = JSON.stringify(body);
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.post<T>(path, payload, signal, timeoutMs);
      } catch (err) {
        if (options.signal?.aborted) throw options.signal.reason;
        if (!(err instanceof TollgateError) || !err.unavailable) throw err;
        if (attempt < this.retries && !deadline.aborted) {
          const delay = Math.max(err.retryAfterMs ?? 0, fullJitterDelay(attempt, this.options.backoff, this.random));
          if (await waitOrAbort(delay, signal)) continue;
        }
        if ((options.onError ?? this.onError) === 'open') return degraded();
        throw err;
      }
    }
  }

  private async post<T>(path: string, body: string, signal: AbortSignal, timeoutMs: number): Promise<T> {
    let res: Response;
    try {
      res = await this.fetch(`${this.baseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: this.authorization, 'content-type': 'application/json' },
        body,
        signal,
      });
    } catch (err) {
      const message = signal.aborted ? `Tollgate did not answer within ${timeoutMs} ms` : 'Tollgate could not be reached';
      throw new TollgateError(ErrorCode.INTERNAL, message, { status: 503, unavailable: true, cause: err });
    }
    let payload: unknown;
    try {
      payload = await res.json();
    } catch (err) {
      if (signal.aborted) throw new TollgateError(ErrorCode.INTERNAL, `Tollgate did not answer within ${timeoutMs} ms`, { status: 503, unavailable: true, cause: err });
      payload = null;
    }
    if (res.ok && payload !== null && typeof payload === 'object') return payload as T;
    const unavailable = res.status >= 500 || res.ok;
    const retryAfter = retryAfterMs(res.headers.get('retry-after'), Date.now());
    const error = (payload as { error?: { code?: unknown; message?: unknown; field?: unknown } } | null)?.error;
    if (error && typeof error.code === 'string') {
      throw new TollgateError(error.code as ErrorCode, String(error.message ?? error.code), {
        field: typeof error.field === 'string' ? error.field : undefined,
        status: res.status,
        retryAfterMs: retryAfter,
        unavailable,
      });
    }
    throw new TollgateError(ErrorCode.INTERNAL, `Tollgate answered ${res.status} without an error body`, { status: res.ok ? 502 : res.status, retryAfterMs: retryAfter, unavailable });
  }
}

/** A pass decided without Tollgate: it claims no limits and sends no headers, since none are known. */
function degradedResult(): CheckResult {
  return { allowed: true, mode: 'enforce', retryAfterMs: 0, ruleVersion: 0, limits: [], headers: {}, degraded: true, reason: 'tollgate_unavailable' };
}

/** Waits `ms` unless `signal` aborts first; says whether the wait completed. */
function waitOrAbort(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
