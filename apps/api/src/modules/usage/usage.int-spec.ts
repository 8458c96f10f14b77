import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { DAY, HOUR, MINUTE, type UsageFixture, useUsageFixture } from '../../../../../test/support/usage-fixture';

// The usage API's series: steps, gaps, time zones, a tenant's own, and every bad request (the fixture writes the rows).
describe('usage API', () => {
  const f = useUsageFixture();
  const { ctx, tokens, iso, usage, insertDay } = f;
  let a: UsageFixture['a'];
  let b: UsageFixture['b'];
  let c: UsageFixture['c'];
  let planPolicy: string;
  let policyOfA: string;
  let policyOfC: string;
  let base: number;
  beforeAll(() => {
    ({ a, b, c, planPolicy, policyOfA, policyOfC, base } = f);
  });

  const zero = { allowed: 0, denied: 0, shadowDenied: 0, degraded: 0, refused: 0, cost: 0 };

  describe('the series', () => {
    it('fills the minutes without usage with zeros, and counts each result in its own column', async () => {
      const r = await usage({ tenant: a.slug, from: iso(base), to: iso(base + 5 * MINUTE) });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toMatchObject({ step: 'minute', timeZone: 'UTC', tenant: { id: a.id, slug: a.slug, name: a.name }, policy: null, result: null });
      expect(r.body.points).toEqual([
        { at: iso(base), ...zero },
        { at: iso(base + MINUTE), ...zero, allowed: 5, denied: 2, cost: 15 },
        { at: iso(base + 2 * MINUTE), ...zero },
        { at: iso(base + 3 * MINUTE), ...zero, shadowDenied: 1, degraded: 5, refused: 3, cost: 5 },
        { at: iso(base + 4 * MINUTE), ...zero },
      ]);
      expect(r.body.refusedByReason).toEqual([{ reason: 'tenant_suspended', checks: 3 }]);
    });

    it('fills the hours without usage with zeros', async () => {
      // Just over 6 hours: read by the hour.
      const r = await usage({ tenant: a.slug, from: iso(base + HOUR), to: iso(base + 7 * HOUR + MINUTE) });
      expect(r.body.step).toBe('hour');
      expect(r.body.points).toEqual([
        { at: iso(base + HOUR), ...zero },
        { at: iso(base + 2 * HOUR), ...zero, allowed: 100, cost: 300 },
        { at: iso(base + 3 * HOUR), ...zero },
        { at: iso(base + 4 * HOUR), ...zero, denied: 9 },
        { at: iso(base + 5 * HOUR), ...zero },
        { at: iso(base + 6 * HOUR), ...zero },
        { at: iso(base + 7 * HOUR), ...zero },
      ]);
    });

    it('counts only the result asked for', async () => {
      const r = await usage({ tenant: a.slug, result: 'denied', from: iso(base), to: iso(base + 5 * MINUTE) });
      expect(r.body.result).toBe('denied');
      expect(r.body.points.map((p: { denied: number; allowed: number }) => [p.denied, p.allowed])).toEqual([[0, 0], [2, 0], [0, 0], [0, 0], [0, 0]]);
    });

    it('shows an operator every tenant: a plan policy counts for all its tenants, a tenant only its own', async () => {
      const range = { from: iso(base), to: iso(base + 5 * MINUTE) };
      const all = await usage({ policy: planPolicy, ...range });
      expect(all.body).toMatchObject({ tenant: null, timeZone: 'UTC', policy: { id: planPolicy, method: 'GET' } });
      expect(all.body.points[1]).toEqual({ at: iso(base + MINUTE), ...zero, allowed: 12, denied: 2, cost: 22 });
      expect(all.body.points[3]).toEqual({ at: iso(base + 3 * MINUTE), ...zero, denied: 6 });
      const ofB = await usage({ tenant: b.slug, policy: planPolicy, ...range });
      expect(ofB.body.points[1]).toEqual({ at: iso(base + MINUTE), ...zero, allowed: 7, cost: 7 });
    });

    it('chooses the minute up to 6 hours, the hour up to 14 days, the day beyond', async () => {
      const step = async (from: number, to: number) => {
        const r = await usage({ tenant: a.slug, from: iso(from), to: iso(to) });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        return [r.body.step, r.body.points.length];
      };
      expect(await step(base, base + 6 * HOUR)).toEqual(['minute', 360]);
      expect(await step(base, base + 6 * HOUR + 1)).toEqual(['hour', 7]);
      expect(await step(base, base + 14 * DAY)).toEqual(['hour', 336]);
      expect(await step(base, base + 14 * DAY + 1)).toEqual(['day', 15]);
    });

    it('reads older ranges at the step that still holds them: hours after 7 days, days after 90; nothing after 400 days', async () => {
      const hour = Math.floor(Date.now() / HOUR) * HOUR;
      const r8 = await usage({ tenant: a.slug, from: iso(hour - 8 * DAY), to: iso(hour - 8 * DAY + HOUR) });
      expect([r8.body.step, r8.body.points.length]).toEqual(['hour', 1]);
      const r100 = await usage({ tenant: a.slug, from: iso(hour - 100 * DAY), to: iso(hour - 100 * DAY + HOUR) });
      expect([r100.body.step, r100.body.points.length]).toEqual(['day', 1]);
      const r401 = await usage({ tenant: a.slug, from: iso(hour - 401 * DAY), to: iso(hour - 401 * DAY + HOUR) });
      expect(r401.status).toBe(400);
      expect(r401.body.error).toMatchObject({ code: 'validation_failed', field: 'from' });
      expect(r401.body.error.message).toMatch(/400 days/);
    });

    it('refuses a range that would need more than 500 points, naming from', async () => {
      const r = await usage({ from: iso(Date.now() - 100 * DAY), to: iso(Date.now() + 420 * DAY) });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_failed', field: 'from' });
      expect(r.body.error.message).toMatch(/500/);
    });

    it('defaults to the day up to now, by the hour', async () => {
      const r = await usage({ tenant: a.slug });
      expect(r.status).toBe(200);
      expect(r.body.step).toBe('hour');
      expect(Date.parse(r.body.to) - Date.parse(r.body.from)).toBe(DAY);
      expect([24, 25]).toContain(r.body.points.length);
    });

    it("reads a tenant's days in its time zone (Asia/Kolkata: each day starts at 18:30 UTC), and UTC days without a tenant", async () => {
      // A calendar day of Kolkata three weeks ago, and the instant it starts.
      const day = new Date(Date.now() - 21 * DAY + 5.5 * HOUR).toISOString().slice(0, 10);
      const starts = Date.parse(`${day}T00:00:00Z`) - 5.5 * HOUR;
      await insertDay(day, c.id, policyOfC, 'allowed', 40, 80);
      await insertDay(day, c.id, null, 'denied', 3);
      const r = await usage({ tenant: c.slug, from: iso(Date.now() - 30 * DAY), to: iso(Date.now()) });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toMatchObject({ step: 'day', timeZone: 'Asia/Kolkata' });
      expect(r.body.points.every((p: { at: string }) => p.at.endsWith('T18:30:00.000Z'))).toBe(true);
      expect(r.body.points.find((p: { at: string }) => p.at === iso(starts))).toEqual({ at: iso(starts), ...zero, allowed: 40, denied: 3, cost: 80 });
      expect(r.body.points.filter((p: { allowed: number; denied: number }) => p.allowed + p.denied > 0)).toHaveLength(1);
      // By the hour, buckets are UTC hours whatever the tenant's zone.
      const hourly = await usage({ tenant: c.slug, from: iso(base), to: iso(base + 6 * HOUR + 1) });
      expect(hourly.body).toMatchObject({ step: 'hour', timeZone: 'Asia/Kolkata' });
      expect(hourly.body.points.map((p: { at: string }) => p.at)).toEqual(Array.from({ length: 7 }, (_, i) => iso(base + i * HOUR)));
      // Without a tenant the days are UTC dates.
      const all = await usage({ policy: policyOfC, from: iso(Date.now() - 30 * DAY), to: iso(Date.now()) });
      expect(all.body).toMatchObject({ step: 'day', timeZone: 'UTC', tenant: null });
      expect(all.body.points.find((p: { allowed: number }) => p.allowed > 0)).toEqual({ at: `${day}T00:00:00.000Z`, ...zero, allowed: 40, cost: 80 });
    });
  });

  describe('a tenant', () => {
    it('sees only its own usage, and may filter by a policy that applies to it', async () => {
      const range = { from: iso(base), to: iso(base + 5 * MINUTE) };
      for (const token of [tokens.userA!, tokens.keyA!]) {
        const r = await usage(range, '/v1/tenant/usage', token);
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        expect(r.body.tenant).toEqual({ id: a.id, slug: a.slug, name: a.name });
        expect(r.body.points[1]).toEqual({ at: iso(base + MINUTE), ...zero, allowed: 5, denied: 2, cost: 15 });
      }
      const ofB = await usage(range, '/v1/tenant/usage', tokens.userB);
      expect(ofB.body.tenant.id).toBe(b.id);
      expect(ofB.body.points[1]).toEqual({ at: iso(base + MINUTE), ...zero, allowed: 7, cost: 7 });
      expect(ofB.body.points[3]).toEqual({ at: iso(base + 3 * MINUTE), ...zero, denied: 6 });
      // Its plan's policy and its own.
      expect((await usage({ ...range, policy: planPolicy }, '/v1/tenant/usage', tokens.userA)).body.points[1].allowed).toBe(5);
      expect((await usage({ ...range, policy: policyOfA }, '/v1/tenant/usage', tokens.userA)).body.points[3].shadowDenied).toBe(1);
    });

    it("finds another tenant's policy exactly as an unknown one, and cannot name another tenant", async () => {
      const theirs = await usage({ policy: policyOfC }, '/v1/tenant/usage', tokens.userA);
      const unknown = await usage({ policy: randomUUID() }, '/v1/tenant/usage', tokens.userA);
      expect(theirs.status).toBe(404);
      expect(theirs.body).toEqual(unknown.body);
      expect(theirs.body.error).toMatchObject({ code: 'not_found', field: 'policy' });
      // B's own policy is A's: not B's.
      expect((await usage({ policy: policyOfA }, '/v1/tenant/usage', tokens.userB)).status).toBe(404);
      for (const path of ['/v1/tenant/usage', '/v1/tenant/usage.csv']) {
        const r = await usage({ tenant: b.slug }, path, tokens.userA);
        expect(r.status).toBe(400);
        expect(r.body.error.code).toBe('validation_failed');
      }
      expect((await usage({ tenant: b.slug }, '/v1/tenant/usage/denials', tokens.userA)).status).toBe(400);
    });

    it('exports only its own rows as CSV', async () => {
      const r = await usage({ from: iso(base), to: iso(base + 5 * MINUTE) }, '/v1/tenant/usage.csv', tokens.userB);
      expect(r.status).toBe(200);
      const utc = (at: number) => iso(at).replace('.000', '');
      const policyName = (await ctx.prisma.endpointPolicy.findUniqueOrThrow({ where: { id: planPolicy } })).name;
      expect(r.body).toBe(
        [
          'bucket,bucket_local,time_zone,tenant,tenant_name,policy,result,reason,decisions,cost',
          // Tenant B keeps UTC: its local time is the UTC one.
          `${utc(base + MINUTE)},${utc(base + MINUTE)},UTC,${b.slug},Tenant B,${policyName},allowed,,7,7`,
          `${utc(base + 3 * MINUTE)},${utc(base + 3 * MINUTE)},UTC,${b.slug},Tenant B,${policyName},denied,daily,6,0`,
          '',
        ].join('\n'),
      );
    });
  });


  describe('bad requests', () => {
    const cases: [string, Record<string, string>, number, string, string | undefined][] = [
      ['from after to', { from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' }, 400, 'validation_failed', 'from'],
      ['from equal to to', { from: '2026-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }, 400, 'validation_failed', 'from'],
      ['a date that is not ISO', { from: 'yesterday' }, 400, 'validation_failed', 'from'],
      ['a date without its zone', { to: '2026-01-01T00:00:00' }, 400, 'validation_failed', 'to'],
      ['a day that does not exist', { from: '2026-02-31T00:00:00Z' }, 400, 'validation_failed', 'from'],
      ['an unknown parameter', { step: 'minute' }, 400, 'validation_failed', undefined],
      ['an unknown tenant', { tenant: 'no-such-tenant' }, 404, 'not_found', 'tenant'],
      ['a malformed slug', { tenant: 'Not A Slug' }, 400, 'validation_failed', 'tenant'],
      ['an unknown policy', { policy: '00000000-0000-4000-8000-000000000000' }, 404, 'not_found', 'policy'],
      ['a malformed policy id', { policy: 'items' }, 400, 'validation_failed', 'policy'],
      ['an unknown result', { result: 'exploded' }, 400, 'validation_failed', 'result'],
    ];
    for (const [what, query, status, code, field] of cases) {
      it(`answers ${what} with ${status} ${code}, on the series and the CSV`, async () => {
        for (const path of ['/v1/admin/usage', '/v1/admin/usage.csv']) {
          const r = await usage(query, path);
          expect(r.status, `${path} ${JSON.stringify(r.body)}`).toBe(status);
          expect(r.body.error.code).toBe(code);
          expect(r.body.error.field).toBe(field);
        }
      });
    }

    it('refuses bad top-N and sample queries', async () => {
      const bad: [string, Record<string, string>, string | undefined][] = [
        ['/v1/admin/usage/top', { by: 'planets' }, 'by'],
        ['/v1/admin/usage/top', { metric: 'joy' }, 'metric'],
        ['/v1/admin/usage/top', { by: 'limits', metric: 'cost' }, 'metric'],
        ['/v1/admin/usage/top', { by: 'policies', metric: 'refused' }, 'metric'],
        ['/v1/admin/usage/top', { top: '101' }, 'top'],
        ['/v1/admin/usage/top', { top: '0' }, 'top'],
        ['/v1/admin/usage/top', { limit: '0' }, 'limit'],
        ['/v1/admin/usage/top', { minDecisions: '0' }, 'minDecisions'],
        ['/v1/admin/usage/top', { minDecisions: 'many' }, 'minDecisions'],
        ['/v1/admin/usage/top', { tenant: a.slug }, undefined],
        ['/v1/admin/usage/denials', {}, 'tenant'],
        ['/v1/admin/usage/denials', { tenant: a.slug, pageSize: '201' }, 'pageSize'],
        ['/v1/admin/usage/denials', { tenant: a.slug, limit: '201' }, 'limit'],
      ];
      for (const [path, query, field] of bad) {
        const r = await usage(query, path);
        expect(r.status, `${path} ${JSON.stringify(query)}`).toBe(400);
        expect(r.body.error).toMatchObject({ code: 'validation_failed' });
        expect(r.body.error.field).toBe(field);
      }
      const unknown = await usage({ tenant: 'no-such-tenant' }, '/v1/admin/usage/denials');
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toMatchObject({ code: 'not_found', field: 'tenant' });
    });
  });
});

