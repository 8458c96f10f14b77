import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fullJitterDelay } from './backoff';
import { ManualClock } from './clock';
import { TollgateError } from './errors';
import { TokenBucket } from './token-bucket';

const bucket = (clock: ManualClock, capacity = 10, refillPerSecond = 5) => new TokenBucket({ capacity, refillPerSecond, clock });

describe('TokenBucket', () => {
  it('serves a burst up to capacity at once, then at the refill rate', async () => {
    const clock = new ManualClock(1_000);
    const b = bucket(clock);
    for (let i = 0; i < 10; i += 1) expect(await b.acquire()).toBe(0);
    const granted: number[] = [];
    const waits = [b.acquire(), b.acquire()].map((p) => p.then((ms) => granted.push(ms)));
    await clock.advance(199);
    expect(granted).toEqual([]);
    await clock.advance(1);
    expect(granted).toEqual([200]);
    await clock.advance(200);
    await Promise.all(waits);
    expect(granted).toEqual([200, 400]);
    expect(b.stats()).toMatchObject({ waits: 2, totalWaitMs: 600, lastWaitMs: 400, queued: 0 });
  });

  it('serves waiters first come, first served: a large request is not starved by small ones', async () => {
    const clock = new ManualClock();
    const b = bucket(clock, 10, 10);
    await b.acquire(10);
    const order: string[] = [];
    const big = b.acquire(8).then(() => order.push('big'));
    const small = b.acquire(1).then(() => order.push('small'));
    await clock.advance(800);
    await big;
    expect(order).toEqual(['big']);
    await clock.advance(100);
    await small;
    expect(order).toEqual(['big', 'small']);
  });

  it('refuses an amount above capacity at once with a typed error, and a non-positive one', async () => {
    const b = bucket(new ManualClock());
    const err = await b.acquire(11).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TollgateError);
    expect(err).toMatchObject({ code: 'cost_exceeds_capacity', field: 'amount' });
    await expect(b.acquire(0)).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(b.acquire(Number.NaN)).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it('cancels a wait with an AbortSignal: rejects with its reason, takes nothing, serves the next in line', async () => {
    const clock = new ManualClock();
    const b = bucket(clock, 10, 10);
    await b.acquire(10);
    const controller = new AbortController();
    const cancelled = b.acquire(10, { signal: controller.signal }).catch((e: unknown) => e);
    const next = b.acquire(1);
    await clock.advance(50);
    controller.abort(new Error('gave up'));
    expect(await cancelled).toMatchObject({ message: 'gave up' });
    await clock.advance(50);
    expect(await next).toBe(100);
    expect(b.stats().available).toBeCloseTo(0);
    await expect(b.acquire(1, { signal: AbortSignal.abort(new Error('already')) })).rejects.toThrow('already');
  });

  it('pauses every caller until a 429 Retry-After (seconds or HTTP-date) and restarts from empty', async () => {
    const clock = new ManualClock(Date.parse('2026-11-30T12:00:00Z'));
    const b = bucket(clock, 10, 10);
    b.onRateLimited('2');
    expect(b.stats().pausedUntil).toBe(clock.now() + 2_000);
    let waited = -1;
    const p = b.acquire(1).then((ms) => (waited = ms));
    await clock.advance(1_999);
    expect(waited).toBe(-1);
    await clock.advance(1);
    await p;
    expect(waited).toBe(2_000);
    expect(b.stats().available).toBeCloseTo(9);

    b.onRateLimited('Mon, 30 Nov 2026 12:00:05 GMT');
    expect(b.stats()).toMatchObject({ pausedUntil: Date.parse('2026-11-30T12:00:05Z'), available: 0 });
    b.onRateLimited('not a date', 250);
    expect(b.stats().pausedUntil).toBe(Date.parse('2026-11-30T12:00:05Z'));
  });

  it('reports the outgoing rate over its window', async () => {
    const clock = new ManualClock();
    const b = new TokenBucket({ capacity: 5, refillPerSecond: 5, clock, rateWindowMs: 10_000 });
    const all = Array.from({ length: 55 }, () => b.acquire());
    await clock.advance(10_000);
    await Promise.all(all);
    // The window is the last 10 slots of 1 s; at 10 s the slot holding t = 0 (the burst of 5) has left it:
    // 46 units in the 9 s since.
    expect(b.stats().outgoingPerSecond).toBeCloseTo(46 / 9, 6);
    await clock.advance(20_000);
    expect(b.stats().outgoingPerSecond).toBe(0);
  });

  it('never takes more than capacity + rate × t in any interval t (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 50 }),
        fc.array(fc.record({ gapMs: fc.integer({ min: 0, max: 400 }), amount: fc.integer({ min: 1, max: 20 }), limited: fc.boolean() }), { minLength: 1, maxLength: 40 }),
        async (capacity, rate, steps) => {
          const clock = new ManualClock(0);
          const b = new TokenBucket({ capacity, refillPerSecond: rate, clock });
          const grants: { at: number; amount: number }[] = [];
          const pending: Promise<unknown>[] = [];
          for (const step of steps) {
            await clock.advance(step.gapMs);
            if (step.limited) b.onRateLimited(String(step.gapMs % 3));
            const amount = Math.min(step.amount, capacity);
            pending.push(b.acquire(amount).then(() => grants.push({ at: clock.now(), amount })));
          }
          await clock.advance(Math.ceil((steps.length * 20 * 1000) / rate) + 10_000);
          await Promise.all(pending);
          expect(grants).toHaveLength(steps.length);
          for (let i = 0; i < grants.length; i += 1) {
            let sum = 0;
            for (let j = i; j < grants.length; j += 1) {
              sum += grants[j]!.amount;
              expect(sum).toBeLessThanOrEqual(capacity + (rate * (grants[j]!.at - grants[i]!.at)) / 1000 + 1e-9);
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('TokenBucket.fetch', () => {
  const answers = (...statuses: [number, Record<string, string>?][]) => {
    const seen: number[] = [];
    const fetch = async () => {
      const [status, headers] = statuses[Math.min(seen.length, statuses.length - 1)]!;
      seen.push(status);
      return new Response(status === 200 ? 'ok' : 'slow down', { status, headers });
    };
    return { fetch: fetch as typeof globalThis.fetch, seen };
  };

  it('retries a 429 after its Retry-After, slowing the whole bucket, then returns the answer', async () => {
    const clock = new ManualClock(0);
    const b = bucket(clock, 10, 10);
    const { fetch, seen } = answers([429, { 'retry-after': '3' }], [200]);
    let res: Response | undefined;
    const call = b.fetch('http://upstream/x', {}, { fetch, random: () => 0 }).then((r) => (res = r));
    await clock.advance(2_999);
    expect(seen).toEqual([429]);
    expect(b.stats().pausedUntil).toBe(3_000);
    await clock.advance(1);
    await call;
    expect(seen).toEqual([429, 200]);
    expect(res?.status).toBe(200);
  });

  it('backs off exponentially with full jitter when no Retry-After comes, and gives up after `retries`', async () => {
    const clock = new ManualClock(0);
    const b = bucket(clock, 10, 1_000);
    const { fetch, seen } = answers([503]);
    let res: Response | undefined;
    const call = b.fetch('http://upstream/x', {}, { fetch, retries: 2, baseMs: 100, random: () => 0.5 }).then((r) => (res = r));
    await clock.advance(49);
    expect(seen).toHaveLength(1);
    await clock.advance(1);
    expect(seen).toHaveLength(2);
    await clock.advance(100);
    await call;
    expect(seen).toEqual([503, 503, 503]);
    expect(res?.status).toBe(503);
  });

  it('full jitter stays below min(max, base × 2^attempt)', () => {
    expect(fullJitterDelay(0, { baseMs: 100 }, () => 0.999)).toBe(99);
    expect(fullJitterDelay(3, { baseMs: 100 }, () => 0.5)).toBe(400);
    expect(fullJitterDelay(20, { baseMs: 100, maxMs: 5_000 }, () => 0.999)).toBe(4_995);
    expect(fullJitterDelay(5, {}, () => 0)).toBe(0);
  });
});
