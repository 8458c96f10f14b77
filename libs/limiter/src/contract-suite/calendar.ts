import { describe, expect, it } from 'vitest';
import { rule, useContract, type ContractTarget } from './context';

const HOUR = 3_600_000;

/** Calendar windows: local midnight and the 1st of the month in an IANA time zone, across DST changes. */
export function calendarContract(target: ContractTarget): void {
  const ctx = useContract(target);
  const daily = rule('fixed_window', 2, 0, { name: 'daily', calendar: { unit: 'day', timeZone: 'America/New_York' } });
  const take = (tenantId: string) => ctx.engine.consume({ tenantId, cost: 1, rules: [daily] });

  describe('calendar windows', () => {
    it('a day in America/New_York resets at local midnight, and a spring-forward day lasts 23 h', async () => {
      const t = ctx.tenant();
      ctx.clock.set(Date.parse('2030-03-09T23:59:00-05:00'));
      expect((await take(t)).rules[0]?.resetMs).toBe(60_000);
      await take(t);
      expect(await take(t)).toMatchObject({ allowed: false, retryAfterMs: 60_000 });
      ctx.clock.advance(59_999);
      expect((await take(t)).allowed).toBe(false);
      ctx.clock.advance(1); // 2030-03-10 00:00 EST; clocks go from 02:00 to 03:00 that night
      expect(await take(t)).toMatchObject({ allowed: true, rules: [{ remaining: 1, resetMs: 23 * HOUR }] });
      ctx.clock.set(Date.parse('2030-03-11T00:00:00-04:00') - 1);
      await take(t);
      expect((await take(t)).allowed).toBe(false);
      ctx.clock.advance(1);
      expect(await take(t)).toMatchObject({ allowed: true, rules: [{ resetMs: 24 * HOUR }] });
    });

    it('a fall-back day lasts 25 h', async () => {
      const t = ctx.tenant();
      ctx.clock.set(Date.parse('2030-11-03T00:00:00-04:00'));
      expect((await take(t)).rules[0]?.resetMs).toBe(25 * HOUR);
      ctx.clock.advance(25 * HOUR - 1);
      await take(t);
      expect((await take(t)).allowed).toBe(false);
      ctx.clock.advance(1);
      expect((await take(t)).allowed).toBe(true);
    });

    it('a month resets on the 1st at local midnight', async () => {
      const t = ctx.tenant();
      const monthly = rule('fixed_window', 1, 0, { name: 'monthly', calendar: { unit: 'month', timeZone: 'Asia/Tokyo' } });
      ctx.clock.set(Date.parse('2030-01-31T23:30:00+09:00'));
      expect(await ctx.engine.consume({ tenantId: t, cost: 1, rules: [monthly] })).toMatchObject({ allowed: true, rules: [{ resetMs: HOUR / 2 }] });
      expect((await ctx.engine.consume({ tenantId: t, cost: 1, rules: [monthly] })).retryAfterMs).toBe(HOUR / 2);
      ctx.clock.advance(HOUR / 2);
      const february = await ctx.engine.consume({ tenantId: t, cost: 1, rules: [monthly] });
      expect(february).toMatchObject({ allowed: true, rules: [{ resetMs: 28 * 24 * HOUR }] });
    });
  });
}
