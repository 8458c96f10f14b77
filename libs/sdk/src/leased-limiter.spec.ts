import type { CheckResult, LeaseResult } from '@tollgate/domain/wire';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CheckInput, LeaseInput } from './client';
import { ManualClock } from './clock';
import { TollgateError } from './errors';
import { LeasedLimiter, type LeaseSource } from './leased-limiter';

/**
 * A lease source with a fixed pool of units per endpoint whose answers the test releases one by one, in any
 * order: it stands in for Tollgate's lease and refund so that every interleaving can be driven.
 */
class Pool implements LeaseSource {
  readonly pending: (() => void)[] = [];
  readonly inFlight = new Map<string, number>();
  maxInFlight = 0;
  leases = 0;
  refunded = 0;
  constructor(
    readonly left: Record<string, number>,
    private readonly retryAfterMs = 1_000,
  ) {}

  lease(input: LeaseInput): Promise<LeaseResult> {
    this.leases += 1;
    const n = (this.inFlight.get(input.endpoint) ?? 0) + 1;
    this.inFlight.set(input.endpoint, n);
    this.maxInFlight = Math.max(this.maxInFlight, n);
    return new Promise((resolve) =>
      this.pending.push(() => {
        this.inFlight.set(input.endpoint, (this.inFlight.get(input.endpoint) ?? 1) - 1);
        const granted = Math.min(input.max, this.left[input.endpoint] ?? 0);
        this.left[input.endpoint] = (this.left[input.endpoint] ?? 0) - granted;
        resolve({ ...result(granted > 0, granted > 0 ? 0 : this.retryAfterMs), granted });
      }),
    );
  }

  async refund(input: CheckInput): Promise<CheckResult> {
    this.refunded += input.cost ?? 1;
    this.left[input.endpoint] = (this.left[input.endpoint] ?? 0) + (input.cost ?? 1);
    return result(true, 0);
  }

  /** Answers every lease asked for so far, and those they cause, until none is left. */
  async drain(): Promise<void> {
    while (this.pending.length > 0) {
      this.pending.shift()!();
      await new Promise((r) => setImmediate(r));
    }
  }
}

function result(allowed: boolean, retryAfterMs: number): CheckResult {
  return { allowed, mode: 'enforce', retryAfterMs, ruleVersion: 1, limits: [{ name: 'minute', limit: 100, remaining: 0, resetMs: 30_000, windowS: 60 }], headers: {} };
}

const target = (endpoint = 'GET /x') => ({ tenant: 'acme', endpoint, subject: 'u1' });

describe('LeasedLimiter', () => {
  it('leases once, spends locally, leases again ahead of need, and refunds the rest on close', async () => {
    const pool = new Pool({ 'GET /x': 1_000 });
    const limiter = new LeasedLimiter({ client: pool, leaseSize: 10, refillAt: 3, clock: new ManualClock(0), sweepEveryMs: 0 });
    expect(limiter.tryTake(target())).toBeUndefined();
    await pool.drain();
    for (let i = 0; i < 7; i += 1) expect(limiter.tryTake(target())).toMatchObject({ allowed: true, mode: 'enforce' });
    expect(pool.leases).toBe(2);
    expect(pool.pending).toHaveLength(1);
    for (let i = 0; i < 3; i += 1) expect(limiter.tryTake(target())?.allowed).toBe(true);
    expect(limiter.tryTake(target())).toBeUndefined();
    await pool.drain();
    expect(limiter.tryTake(target(), 4)?.allowed).toBe(true);
    expect(limiter.stats()).toMatchObject({ leases: 2, granted: 20, spent: 14, held: 6 });
    await limiter.close();
    expect(pool.refunded).toBe(6);
    expect(pool.left['GET /x']).toBe(1_000 - 14);
  });

  it('keeps a denial until its Retry-After passes, without calling Tollgate', async () => {
    const clock = new ManualClock(0);
    const pool = new Pool({ 'GET /x': 2 }, 5_000);
    const limiter = new LeasedLimiter({ client: pool, leaseSize: 10, refillAt: 0, clock, sweepEveryMs: 0 });
    const first = limiter.take(target());
    await pool.drain();
    expect(await first).toMatchObject({ allowed: true });
    expect(limiter.tryTake(target())?.allowed).toBe(true);
    const denied = limiter.take(target());
    await pool.drain();
    expect(await denied).toEqual({ allowed: false, retryAfterMs: 5_000, mode: 'enforce' });
    await clock.advance(1_000);
    expect(limiter.tryTake(target())).toEqual({ allowed: false, retryAfterMs: 4_000, mode: 'enforce' });
    expect(pool.leases).toBe(2);
    await clock.advance(4_000);
    expect(limiter.tryTake(target())).toBeUndefined();
    expect(pool.leases).toBe(3);
  });

  it('refunds the units of an expired lease (its ttl or its first limit reset) and leases afresh', async () => {
    const clock = new ManualClock(0);
    const pool = new Pool({ 'GET /x': 100 });
    const limiter = new LeasedLimiter({ client: pool, leaseSize: 10, refillAt: 0, leaseTtlMs: 60_000, clock, sweepEveryMs: 0 });
    limiter.tryTake(target());
    await pool.drain();
    limiter.tryTake(target(), 3);
    await clock.advance(30_000); // the limit's resetMs
    limiter.sweep();
    expect(pool.refunded).toBe(7);
    expect(limiter.stats()).toMatchObject({ held: 0, targets: 0 });
    expect(limiter.tryTake(target())).toBeUndefined();
    const closing = limiter.close();
    await pool.drain();
    await closing;
    expect(pool.left['GET /x']).toBe(97);
    expect(() => limiter.tryTake(target())).toThrow('closed');
  });

  it('fails like its client: a failed lease is thrown to the callers waiting, then paused for a second', async () => {
    const clock = new ManualClock(0);
    const error = new TollgateError('redis_unavailable', 'down', { status: 503, unavailable: true });
    let calls = 0;
    const failing: LeaseSource = { lease: async () => (calls += 1, Promise.reject(error)), refund: async () => result(true, 0) };
    const limiter = new LeasedLimiter({ client: failing, leaseSize: 10, clock, sweepEveryMs: 0 });
    await expect(limiter.take(target())).rejects.toBe(error);
    expect(() => limiter.tryTake(target())).toThrow(error);
    expect(calls).toBe(1);
    await clock.advance(1_000);
    await expect(limiter.take(target())).rejects.toBe(error);
    expect(calls).toBe(2);
  });

  it('spends a fail-open (degraded) lease as degraded passes and never refunds it', async () => {
    const degraded: LeaseSource = {
      lease: async (input) => ({ ...result(true, 0), limits: [], degraded: true, reason: 'tollgate_unavailable', granted: input.max }),
      refund: () => Promise.reject(new Error('must not be called')),
    };
    const limiter = new LeasedLimiter({ client: degraded, leaseSize: 5, clock: new ManualClock(0), sweepEveryMs: 0 });
    expect(await limiter.take(target())).toEqual({ allowed: true, retryAfterMs: 0, mode: 'enforce', degraded: true, reason: 'tollgate_unavailable' });
    await limiter.close();
  });

  it('never admits more than it was granted, holds one lease in flight per target, and gives back the rest (property)', async () => {
    const endpoints = ['GET /a', 'GET /b', 'GET /c'];
    const op = fc.oneof(
      fc.record({ kind: fc.constant('take' as const), endpoint: fc.constantFrom(...endpoints), cost: fc.integer({ min: 1, max: 12 }), wait: fc.boolean() }),
      fc.record({ kind: fc.constant('answer' as const), index: fc.nat() }),
      fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 3_000 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 20 }), fc.nat({ max: 10 }), fc.array(fc.integer({ min: 0, max: 60 }), { minLength: 3, maxLength: 3 }), fc.array(op, { maxLength: 80 }), async (leaseSize, refillAt, pools, ops) => {
        const clock = new ManualClock(0);
        const initial = Object.fromEntries(endpoints.map((e, i) => [e, pools[i]!]));
        const pool = new Pool({ ...initial });
        const limiter = new LeasedLimiter({ client: pool, leaseSize, refillAt, leaseTtlMs: 2_000, clock, sweepEveryMs: 0 });
        const admitted: Record<string, number> = {};
        const waiting: Promise<unknown>[] = [];
        const count = (endpoint: string, cost: number) => (d: { allowed: boolean } | undefined) => {
          if (d?.allowed) admitted[endpoint] = (admitted[endpoint] ?? 0) + cost;
        };
        for (const o of ops) {
          if (o.kind === 'take') {
            if (o.wait) waiting.push(limiter.take(target(o.endpoint), o.cost).then(count(o.endpoint, o.cost), (err: Error) => expect(err.message).toMatch('closed')));
            else count(o.endpoint, o.cost)(limiter.tryTake(target(o.endpoint), o.cost));
          } else if (o.kind === 'answer' && pool.pending.length > 0) {
            pool.pending.splice(o.index % pool.pending.length, 1)[0]!();
            await new Promise((r) => setImmediate(r));
          } else if (o.kind === 'tick') {
            await clock.advance(o.ms);
            limiter.sweep();
          }
          for (const e of endpoints) expect((admitted[e] ?? 0) + (pool.left[e] ?? 0)).toBeLessThanOrEqual(initial[e]!);
        }
        const closing = limiter.close();
        await pool.drain();
        await Promise.all(waiting);
        await closing;
        expect(pool.maxInFlight).toBeLessThanOrEqual(1);
        for (const e of endpoints) expect((admitted[e] ?? 0) + (pool.left[e] ?? 0)).toBe(initial[e]);
      }),
      { numRuns: 300 },
    );
  });
});
