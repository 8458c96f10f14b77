import { describe, expect, it } from 'vitest';
import type { LimitRule } from '../contract';
import { CostExceedsCapacityError, InvalidLimitRequestError, InvalidRuleError, LeaseNotSupportedError } from '../errors';
import { ALGORITHMS } from '../contract';
import { rule, useContract, type ContractTarget } from './context';

const DAY = 86_400_000;

/** consume / peek / refund / lease over every algorithm, all or nothing, and the errors. */
export function operationContract(target: ContractTarget): void {
  const ctx = useContract(target);
  /** Capacity `units` for every algorithm, slow enough that nothing comes back during a test. */
  const slow = (algorithm: LimitRule['algorithm'], units: number) => rule(algorithm, units, DAY);

  describe.each(ALGORITHMS)('%s', (algorithm) => {
    it('over-ask charges nothing: limit 2000, 1000 passes, 1500 is denied and 1000 remain, 500 passes', async () => {
      const t = ctx.tenant();
      const rules = [slow(algorithm, 2000)];
      expect(await ctx.engine.consume({ tenantId: t, cost: 1000, rules })).toMatchObject({ allowed: true, retryAfterMs: 0, rules: [{ remaining: 1000 }] });
      const overAsk = await ctx.engine.consume({ tenantId: t, cost: 1500, rules });
      expect(overAsk).toMatchObject({ allowed: false, delayMs: 0, rules: [{ remaining: 1000 }] });
      expect(overAsk.retryAfterMs).toBeGreaterThan(0);
      expect(await ctx.engine.consume({ tenantId: t, cost: 500, rules })).toMatchObject({ allowed: true, rules: [{ remaining: 500 }] });
    });

    it('weighted cost: 300 concurrent checks of cost 7 against 1000 admit exactly 142', async () => {
      const t = ctx.tenant();
      const rules = [slow(algorithm, 1000)];
      const ds = await Promise.all(Array.from({ length: 300 }, () => ctx.engine.consume({ tenantId: t, cost: 7, rules })));
      expect(ds.filter((d) => d.allowed)).toHaveLength(142);
    });

    it('refund gives back, never above capacity', async () => {
      const t = ctx.tenant();
      const rules = [slow(algorithm, 10)];
      await ctx.engine.consume({ tenantId: t, cost: 3, rules });
      expect((await ctx.engine.refund({ tenantId: t, cost: 2, rules })).rules[0]?.remaining).toBe(9);
      const over = await ctx.engine.refund({ tenantId: t, cost: 5, rules });
      expect(over).toMatchObject({ allowed: true, retryAfterMs: 0, rules: [{ remaining: 10, limit: 10 }] });
      expect((await ctx.engine.peek({ tenantId: t, cost: 10, rules })).allowed).toBe(true);
    });

    it('peek answers like consume and writes nothing', async () => {
      const t = ctx.tenant();
      const rules = [slow(algorithm, 5)];
      await ctx.engine.consume({ tenantId: t, cost: 2, rules });
      const peeks = [];
      for (let i = 0; i < 5; i += 1) peeks.push(await ctx.engine.peek({ tenantId: t, cost: 3, rules }));
      expect(new Set(peeks.map((p) => JSON.stringify(p))).size).toBe(1);
      expect(await ctx.engine.consume({ tenantId: t, cost: 3, rules })).toEqual(peeks[0]);
      const deniedPeek = await ctx.engine.peek({ tenantId: t, cost: 1, rules });
      expect(deniedPeek.allowed).toBe(false);
      expect(await ctx.engine.consume({ tenantId: t, cost: 1, rules })).toEqual(deniedPeek);
    });

    it('refuses a cost above the capacity before touching any state', async () => {
      const t = ctx.tenant();
      const rules = [slow(algorithm, 5)];
      for (const op of ['consume', 'peek', 'refund'] as const) {
        await expect(ctx.engine[op]({ tenantId: t, cost: 6, rules })).rejects.toBeInstanceOf(CostExceedsCapacityError);
      }
      await expect(ctx.engine.consume({ tenantId: t, cost: 6, rules })).rejects.toMatchObject({ code: 'cost_exceeds_capacity', field: 'cost' });
      expect((await ctx.engine.peek({ tenantId: t, cost: 5, rules })).allowed).toBe(true);
    });
  });

  describe('all or nothing', () => {
    it('a request denied by one rule leaves every other rule unchanged (mixed algorithms)', async () => {
      const t = ctx.tenant();
      const loose = ALGORITHMS.map((a) => slow(a, 10));
      const tight = rule('fixed_window', 2, 60_000, { name: 'tight' });
      await ctx.engine.consume({ tenantId: t, cost: 2, rules: [...loose, tight] });
      const before = await ctx.engine.peek({ tenantId: t, cost: 1, rules: loose });
      const denied = await ctx.engine.consume({ tenantId: t, cost: 1, rules: [...loose, tight] });
      expect(denied.allowed).toBe(false);
      expect(denied.retryAfterMs).toBe(60_000);
      expect(denied.rules.map((r) => r.retryAfterMs)).toEqual([0, 0, 0, 0, 0, 0, 0, 60_000]);
      expect(denied.rules.slice(0, 7).map((r) => r.remaining)).toEqual([8, 8, 8, 8, 8, 8, 8]);
      expect(await ctx.engine.peek({ tenantId: t, cost: 1, rules: loose })).toEqual(before);
    });

    it('per-second 10 and daily 1000: 50 checks in one second admit 10, and the daily count reads 10', async () => {
      const t = ctx.tenant();
      const rules = [rule('fixed_window', 10, 1000, { name: 'second' }), rule('fixed_window', 1000, DAY, { name: 'daily' })];
      const ds = await Promise.all(Array.from({ length: 50 }, () => ctx.engine.consume({ tenantId: t, cost: 1, rules })));
      expect(ds.filter((d) => d.allowed)).toHaveLength(10);
      expect((await ctx.engine.peek({ tenantId: t, cost: 1, rules: rules.slice(1) })).rules[0]?.remaining).toBe(989);
    });

    it('the retry-after of a denial is the largest among the denying rules', async () => {
      const t = ctx.tenant();
      const rules = [rule('fixed_window', 1, 1000, { name: 'second' }), rule('token_bucket', 1, 5000)];
      await ctx.engine.consume({ tenantId: t, cost: 1, rules });
      const denied = await ctx.engine.consume({ tenantId: t, cost: 1, rules });
      expect(denied).toMatchObject({ allowed: false, retryAfterMs: 5000, rules: [{ retryAfterMs: 1000 }, { retryAfterMs: 5000 }] });
    });
  });

  describe('a policy in shadow mode (shadowFrom)', () => {
    const own = () => rule('fixed_window', 5, DAY, { name: 'own' });
    const policy = (algorithm: LimitRule['algorithm']) => slow(algorithm, 2);

    it.each(ALGORITHMS)('never denies by its %s rules: admitted on the rules before them, which alone are charged', async (algorithm) => {
      const t = ctx.tenant();
      const rules = [own(), policy(algorithm)];
      const ds = [];
      for (let i = 0; i < 6; i += 1) ds.push(await ctx.engine.consume({ tenantId: t, cost: 1, rules, shadowFrom: 1 }));
      // Two pass the policy; three more would have been denied by it and pass; the sixth is denied by the own limit.
      expect(ds.map((d) => [d.allowed, (d.rules[1]?.retryAfterMs ?? 0) > 0])).toEqual([[true, false], [true, false], [true, true], [true, true], [true, true], [false, true]]);
      expect(ds[2]).toMatchObject({ retryAfterMs: 0, delayMs: 0, rules: [{ remaining: 2 }, { remaining: 0 }] });
      // The policy's rule was charged by the two it admitted only.
      expect((await ctx.engine.peek({ tenantId: t, cost: 1, rules: rules.slice(1) })).allowed).toBe(false);
      expect((await ctx.engine.peek({ tenantId: t, cost: 1, rules: [own()] })).allowed).toBe(false);
    });

    it('decides the policy and the own limits atomically: 50 concurrent checks, own limit 10, policy 3', async () => {
      const t = ctx.tenant();
      const rules = [rule('fixed_window', 10, DAY, { name: 'own' }), rule('token_bucket', 3, DAY, { name: 'policy' })];
      const ds = await Promise.all(Array.from({ length: 50 }, () => ctx.engine.consume({ tenantId: t, cost: 1, rules, shadowFrom: 1 })));
      const wouldDeny = (d: (typeof ds)[number]) => (d.rules[1]?.retryAfterMs ?? 0) > 0;
      expect(ds.filter((d) => d.allowed && !wouldDeny(d))).toHaveLength(3);
      expect(ds.filter((d) => d.allowed && wouldDeny(d))).toHaveLength(7);
      expect(ds.filter((d) => !d.allowed)).toHaveLength(40);
    });

    it('a peek answers as the consume would, writing nothing; refund and lease ignore it', async () => {
      const t = ctx.tenant();
      const rules = [own(), policy('fixed_window')];
      await ctx.engine.consume({ tenantId: t, cost: 2, rules });
      const peek = await ctx.engine.peek({ tenantId: t, cost: 1, rules, shadowFrom: 1 });
      expect(peek).toMatchObject({ allowed: true, rules: [{ remaining: 2 }, { remaining: 0 }] });
      expect(await ctx.engine.consume({ tenantId: t, cost: 1, rules, shadowFrom: 1 })).toEqual(peek);
      expect((await ctx.engine.lease({ tenantId: t, max: 1, rules, shadowFrom: 1 })).granted).toBe(0);
    });

    it('refuses an index that is not a rule\'s', async () => {
      const t = ctx.tenant();
      for (const shadowFrom of [-1, 3, 0.5]) {
        await expect(ctx.engine.consume({ tenantId: t, cost: 1, rules: [own(), policy('gcra')], shadowFrom })).rejects.toBeInstanceOf(InvalidLimitRequestError);
      }
    });
  });

  describe('lease', () => {
    it('grants min(max, what every rule has left) all or nothing; the unused part can be refunded', async () => {
      const t = ctx.tenant();
      const rules = [slow('fixed_window', 10), slow('token_bucket', 20), slow('gcra', 20)];
      await ctx.engine.consume({ tenantId: t, cost: 7, rules });
      const lease = await ctx.engine.lease({ tenantId: t, max: 5, rules });
      expect(lease.granted).toBe(3);
      expect(lease.decision).toMatchObject({ allowed: true, rules: [{ remaining: 0 }, { remaining: 10 }, { remaining: 10 }] });
      const none = await ctx.engine.lease({ tenantId: t, max: 5, rules });
      expect(none.granted).toBe(0);
      expect(none.decision).toMatchObject({ allowed: false, rules: [{ remaining: 0 }, { remaining: 10 }, { remaining: 10 }] });
      expect(none.decision.retryAfterMs).toBeGreaterThan(0);
      const back = await ctx.engine.refund({ tenantId: t, cost: 2, rules });
      expect(back.rules.map((r) => r.remaining)).toEqual([2, 12, 12]);
    });

    it('grants the whole max when it fits', async () => {
      const t = ctx.tenant();
      const lease = await ctx.engine.lease({ tenantId: t, max: 4, rules: [slow('sliding_log', 10)] });
      expect(lease).toMatchObject({ granted: 4, decision: { allowed: true, rules: [{ remaining: 6 }] } });
    });

    it('refuses a max above a capacity, and a shaper rule', async () => {
      const t = ctx.tenant();
      await expect(ctx.engine.lease({ tenantId: t, max: 11, rules: [slow('sliding_window', 10)] })).rejects.toMatchObject({ field: 'max' });
      await expect(ctx.engine.lease({ tenantId: t, max: 11, rules: [slow('sliding_window', 10)] })).rejects.toBeInstanceOf(CostExceedsCapacityError);
      await expect(ctx.engine.lease({ tenantId: t, max: 1, rules: [slow('leaky_bucket_shaper', 10)] })).rejects.toBeInstanceOf(LeaseNotSupportedError);
    });
  });

  describe('requests and rules', () => {
    it('hashes subjects: `{`, `}` and `:` are harmless, and each subject has its own budget', async () => {
      const t = ctx.tenant();
      const rules = [slow('fixed_window', 1)];
      for (const subject of ['user:{42}:x', 'user:{43}:x', '}{', undefined]) {
        expect((await ctx.engine.consume({ tenantId: t, subject, cost: 1, rules })).allowed).toBe(true);
        expect((await ctx.engine.consume({ tenantId: t, subject, cost: 1, rules })).allowed).toBe(false);
      }
    });

    it('counts each rule for its own subject (ruleSubjects), all or nothing across them', async () => {
      const t = ctx.tenant();
      // A tenant-wide limit of 3 and a per-user limit of 2 in one decision.
      const rules = [{ ...slow('fixed_window', 3), name: 'tenant' }, { ...slow('token_bucket', 2), name: 'user' }];
      const as = (user: string) => ({ tenantId: t, cost: 1, rules, ruleSubjects: [undefined, user] });
      expect((await ctx.engine.consume(as('u1'))).allowed).toBe(true);
      expect((await ctx.engine.consume(as('u1'))).allowed).toBe(true);
      const third = await ctx.engine.consume(as('u1'));
      expect(third.allowed).toBe(false);
      expect(third.rules.map((r) => r.remaining)).toEqual([1, 0]);
      // Another user has a budget of its own, but shares the tenant's, which the denial above did not charge.
      expect((await ctx.engine.consume(as('u2'))).rules.map((r) => r.remaining)).toEqual([0, 1]);
      const over = await ctx.engine.consume(as('u3'));
      expect(over.allowed).toBe(false);
      expect(over.rules.map((r) => r.remaining)).toEqual([0, 2]);
      await expect(ctx.engine.consume({ tenantId: t, cost: 1, rules, ruleSubjects: ['x'] })).rejects.toBeInstanceOf(InvalidLimitRequestError);
    });

    it('keeps tenants apart', async () => {
      const rules = [slow('gcra', 1)];
      const [a, b] = [ctx.tenant(), ctx.tenant()];
      await ctx.engine.consume({ tenantId: a, cost: 1, rules });
      expect((await ctx.engine.consume({ tenantId: b, cost: 1, rules })).allowed).toBe(true);
    });

    it.each<[string, Partial<LimitRule>, string]>([
      ['an unknown algorithm', { algorithm: 'magic' as LimitRule['algorithm'] }, 'unknown_algorithm'],
      ['a zero limit', { limit: 0 }, 'not_positive_integer'],
      ['a fractional window', { windowMs: 1.5 }, 'not_positive_integer'],
      ['a negative burst', { algorithm: 'token_bucket', burst: -1 }, 'not_positive_integer'],
      ['a huge limit', { limit: 2e9 }, 'too_large'],
      ['a sliding log above 10,000', { algorithm: 'sliding_log', limit: 10_001 }, 'too_large'],
      ['a bucket that would lose precision', { algorithm: 'gcra', limit: 1e9, windowMs: 366 * DAY }, 'loses_precision'],
      ['a sliding window that would lose precision', { algorithm: 'sliding_window', limit: 1e9, windowMs: 366 * DAY }, 'loses_precision'],
      ['a bad name', { name: 'Minute!' }, 'bad_name'],
      ['an unknown time zone', { calendar: { unit: 'day', timeZone: 'Mars/Olympus' } }, 'bad_calendar'],
      ['a calendar on a bucket', { algorithm: 'token_bucket', calendar: { unit: 'day', timeZone: 'UTC' } }, 'bad_calendar'],
    ])('refuses %s with a typed error', async (_what, change, reason) => {
      const bad = { ...slow('fixed_window', 10), ...change };
      const error = await ctx.engine.consume({ tenantId: ctx.tenant(), cost: 1, rules: [bad] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidRuleError);
      expect(error).toMatchObject({ reason, code: 'rule_set_invalid' });
    });

    it('refuses duplicate rule names and bad costs', async () => {
      const t = ctx.tenant();
      const r = slow('fixed_window', 10);
      await expect(ctx.engine.consume({ tenantId: t, cost: 1, rules: [r, { ...r, algorithm: 'gcra' }] })).rejects.toMatchObject({ reason: 'duplicate_name' });
      for (const cost of [0, -1, 1.5, Number.NaN, '3' as unknown as number]) {
        await expect(ctx.engine.consume({ tenantId: t, cost, rules: [r] })).rejects.toBeInstanceOf(InvalidLimitRequestError);
      }
      await expect(ctx.engine.consume({ tenantId: '', cost: 1, rules: [r] })).rejects.toMatchObject({ field: 'tenantId' });
    });
  });
}
