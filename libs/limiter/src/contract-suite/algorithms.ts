import { describe, expect, it } from 'vitest';
import type { Decision, LimitRule } from '../contract';
import { rule, useContract, type ContractTarget } from './context';

/** Each algorithm's textbook behaviour and the worked examples of libs/limiter/README.md. */
export function algorithmContract(target: ContractTarget): void {
  const ctx = useContract(target);
  const consumeN = async (tenantId: string, rules: LimitRule[], n: number, cost = 1): Promise<Decision[]> => {
    const out: Decision[] = [];
    for (let i = 0; i < n; i += 1) out.push(await ctx.engine.consume({ tenantId, cost, rules }));
    return out;
  };

  describe('fixed window', () => {
    const fw = rule('fixed_window', 3, 1000);

    it('admits the limit per window, denies until the window ends, then starts again', async () => {
      const t = ctx.tenant();
      ctx.clock.advance(100);
      const ds = await consumeN(t, [fw], 4);
      expect(ds.map((d) => d.allowed)).toEqual([true, true, true, false]);
      expect(ds.map((d) => d.rules[0]?.remaining)).toEqual([2, 1, 0, 0]);
      expect(ds[3]).toMatchObject({ retryAfterMs: 900, rules: [{ limit: 3, resetMs: 900, retryAfterMs: 900 }] });
      ctx.clock.advance(899);
      expect((await consumeN(t, [fw], 1))[0]?.allowed).toBe(false);
      ctx.clock.advance(1);
      expect((await consumeN(t, [fw], 1))[0]).toMatchObject({ allowed: true, rules: [{ remaining: 2, resetMs: 1000 }] });
    });

    it('admits up to 2x the limit across a window boundary (the documented trade-off)', async () => {
      const t = ctx.tenant();
      ctx.clock.advance(999);
      const before = await consumeN(t, [fw], 3);
      ctx.clock.advance(1);
      const after = await consumeN(t, [fw], 3);
      expect([...before, ...after].every((d) => d.allowed)).toBe(true); // 6 units within 2 ms
    });
  });

  describe('sliding log', () => {
    const sl = rule('sliding_log', 3, 1000);

    it('admits at most the limit in any window-long interval; a denied request is not logged', async () => {
      const t = ctx.tenant();
      await consumeN(t, [sl], 1);
      ctx.clock.advance(100);
      await consumeN(t, [sl], 1);
      ctx.clock.advance(100);
      await consumeN(t, [sl], 1);
      const denied = await consumeN(t, [sl], 5);
      expect(denied.every((d) => !d.allowed)).toBe(true);
      expect(denied[0]).toMatchObject({ retryAfterMs: 800, rules: [{ remaining: 0, resetMs: 1000 }] });
      ctx.clock.advance(799);
      expect((await consumeN(t, [sl], 1))[0]?.allowed).toBe(false);
      ctx.clock.advance(1); // the first unit (at 0) left (800 - 1000, 800]
      expect((await consumeN(t, [sl], 2)).map((d) => d.allowed)).toEqual([true, false]);
    });

    it('logs a cost as that many units and refunds the newest', async () => {
      const t = ctx.tenant();
      const big = rule('sliding_log', 10, 1000);
      await ctx.engine.consume({ tenantId: t, cost: 4, rules: [big] });
      ctx.clock.advance(500);
      await ctx.engine.consume({ tenantId: t, cost: 6, rules: [big] });
      const refunded = await ctx.engine.refund({ tenantId: t, cost: 6, rules: [big] });
      expect(refunded.rules[0]).toMatchObject({ remaining: 6, resetMs: 500 }); // the 4 at 0 remain, until 1000
      const denied = await ctx.engine.peek({ tenantId: t, cost: 8, rules: [big] });
      expect(denied).toMatchObject({ allowed: false, retryAfterMs: 500 });
    });
  });

  describe('sliding window counter', () => {
    const sw = rule('sliding_window', 10, 1000);

    it('weights the previous window by the part of it still inside the sliding window', async () => {
      const t = ctx.tenant();
      ctx.clock.advance(500);
      expect((await ctx.engine.consume({ tenantId: t, cost: 10, rules: [sw] })).allowed).toBe(true);
      ctx.clock.advance(750); // elapsed 250 in the next window: estimate 10 x 0.75 = 7.5
      const ds = await consumeN(t, [sw], 3);
      expect(ds.map((d) => d.allowed)).toEqual([true, true, false]);
      // 7.5 + 2 + 1 fits again when 10 x (1000 - e) / 1000 <= 7, at e = 300: 50 ms from now.
      expect(ds[2]).toMatchObject({ retryAfterMs: 50, rules: [{ remaining: 0, resetMs: 1750 }] });
      ctx.clock.advance(49);
      expect((await consumeN(t, [sw], 1))[0]?.allowed).toBe(false);
      ctx.clock.advance(1);
      expect((await consumeN(t, [sw], 1))[0]?.allowed).toBe(true);
    });

    it('computes the retry exactly when the current window alone is too full', async () => {
      const t = ctx.tenant();
      ctx.clock.advance(200);
      await ctx.engine.consume({ tenantId: t, cost: 10, rules: [sw] });
      const denied = await ctx.engine.consume({ tenantId: t, cost: 1, rules: [sw] });
      // Next window: 10 x (1000 - e) / 1000 + 1 <= 10 at e = 100, i.e. 800 + 100 ms from now.
      expect(denied).toMatchObject({ allowed: false, retryAfterMs: 900 });
      ctx.clock.advance(899);
      expect((await consumeN(t, [sw], 1))[0]?.allowed).toBe(false);
      ctx.clock.advance(1);
      expect((await consumeN(t, [sw], 1))[0]?.allowed).toBe(true);
    });
  });

  describe('token bucket', () => {
    const tb = rule('token_bucket', 1, 1000, { burst: 5 });

    it('capacity 5 at 1 token/s: five pass, the sixth waits 1 s; 2.5 s later two pass; after idling, five', async () => {
      const t = ctx.tenant();
      const first = await consumeN(t, [tb], 6);
      expect(first.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
      expect(first.map((d) => d.rules[0]?.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
      expect(first[5]).toMatchObject({ retryAfterMs: 1000, rules: [{ limit: 5, resetMs: 5000, retryAfterMs: 1000 }] });
      ctx.clock.advance(2500);
      const later = await consumeN(t, [tb], 3);
      expect(later.map((d) => d.allowed)).toEqual([true, true, false]);
      expect(later[2]?.retryAfterMs).toBe(500);
      ctx.clock.advance(3_600_000);
      expect((await consumeN(t, [tb], 6)).map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
    });
  });

  describe('a clock that steps back (Redis TIME after a failover)', () => {
    it.each(['token_bucket', 'leaky_bucket', 'gcra'] as const)('%s: refills nothing twice and counts from the latest time seen', async (algorithm) => {
      const t = ctx.tenant();
      const bucket = rule(algorithm, 1, 1000, { burst: 5 });
      await ctx.engine.consume({ tenantId: t, cost: 5, rules: [bucket] });
      ctx.clock.advance(1000);
      expect((await consumeN(t, [bucket], 1))[0]?.allowed).toBe(true);
      ctx.clock.advance(-500);
      // Still empty as of t = 1000: the next unit comes at t = 2000, 1500 ms from this clock's now.
      expect((await consumeN(t, [bucket], 1))[0]).toMatchObject({ allowed: false, retryAfterMs: 1500 });
    });
  });

  describe('leaky bucket', () => {
    it('meter: the level rises by the cost and leaks at the rate; admitted while it fits', async () => {
      const t = ctx.tenant();
      const lb = rule('leaky_bucket', 1, 1000, { burst: 5 });
      const ds = await consumeN(t, [lb], 6);
      expect(ds.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
      expect(ds[5]).toMatchObject({ retryAfterMs: 1000, delayMs: 0, rules: [{ remaining: 0, resetMs: 5000 }] });
      ctx.clock.advance(1000);
      expect((await consumeN(t, [lb], 2)).map((d) => d.allowed)).toEqual([true, false]);
    });

    it('shaper: B requests at once wait T, 2T, ... B x T (T = W / limit); the next is denied', async () => {
      const t = ctx.tenant();
      const ls = rule('leaky_bucket_shaper', 5, 1000); // T = 200 ms
      const ds = await consumeN(t, [ls], 6);
      expect(ds.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
      expect(ds.map((d) => d.delayMs)).toEqual([200, 400, 600, 800, 1000, 0]);
      expect(ds[5]?.retryAfterMs).toBe(200);
      ctx.clock.advance(200);
      expect((await consumeN(t, [ls], 1))[0]).toMatchObject({ allowed: true, delayMs: 1000 });
    });

    it('shaper: delays round up to whole ms when W / limit is not whole', async () => {
      const t = ctx.tenant();
      const ls = rule('leaky_bucket_shaper', 3, 1000);
      expect((await consumeN(t, [ls], 4)).map((d) => d.delayMs)).toEqual([334, 667, 1000, 0]);
    });
  });

  describe('GCRA', () => {
    it('admits a burst of exactly B even when the emission interval is a fraction of a ms', async () => {
      const t = ctx.tenant();
      const gc = rule('gcra', 3, 1000); // T = 333.33 ms
      const ds = await consumeN(t, [gc], 4);
      expect(ds.map((d) => d.allowed)).toEqual([true, true, true, false]);
      expect(ds[2]?.rules[0]).toMatchObject({ remaining: 0, resetMs: 1000 });
      expect(ds[3]?.retryAfterMs).toBe(334);
      ctx.clock.advance(333);
      expect((await consumeN(t, [gc], 1))[0]?.allowed).toBe(false);
      ctx.clock.advance(1);
      expect((await consumeN(t, [gc], 2)).map((d) => d.allowed)).toEqual([true, false]);
    });

    it('spaces requests by the emission interval when the burst is 1', async () => {
      const t = ctx.tenant();
      const gc = rule('gcra', 10, 1000, { burst: 1 });
      expect((await consumeN(t, [gc], 1))[0]?.allowed).toBe(true);
      ctx.clock.advance(50);
      expect((await consumeN(t, [gc], 1))[0]).toMatchObject({ allowed: false, retryAfterMs: 50 });
      ctx.clock.advance(50);
      expect((await consumeN(t, [gc], 1))[0]?.allowed).toBe(true);
    });
  });
}
