import type { UsageTop } from '@tollgate/domain';
import { denialFields, denialsKey, type DenialSample } from '@tollgate/usage';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { createTenant } from '../../../../../test/support/fixtures';
import { DAY, HOUR, MINUTE, type UsageFixture, useUsageFixture } from '../../../../../test/support/usage-fixture';

// The usage API's CSV export, top-N and denial samples (the fixture writes the rows).
describe('usage API exports', () => {
  const f = useUsageFixture();
  const { ctx, tokens, iso, get, usage, insert, insertDay } = f;
  let a: UsageFixture['a'];
  let b: UsageFixture['b'];
  let c: UsageFixture['c'];
  let planPolicy: string;
  let policyOfA: string;
  let policyOfC: string;
  let base: number;
  let redis: Redis;
  const HOSTILE_NAME = f.hostileName;
  beforeAll(() => {
    ({ a, b, c, planPolicy, policyOfA, policyOfC, base, redis } = f);
  });

  describe('the CSV export', () => {
    it('names the tenant by slug, says each bucket in UTC and in the tenant\'s zone, quotes names and defuses formulas, as an attachment', async () => {
      const hour = base + 6 * HOUR;
      await insert('usageMinute', hour, c.id, policyOfC, 'allowed', '', 11, 22);
      await insert('usageMinute', hour + MINUTE, c.id, null, 'denied', 'minute', 1);
      const zone = (await ctx.prisma.tenant.findUniqueOrThrow({ where: { id: c.id } })).timeZone;
      await ctx.prisma.tenant.update({ where: { id: c.id }, data: { timeZone: 'Asia/Kolkata' } });
      const r = await usage({ tenant: c.slug, from: iso(hour), to: iso(hour + 10 * MINUTE) }, '/v1/admin/usage.csv').finally(() =>
        ctx.prisma.tenant.update({ where: { id: c.id }, data: { timeZone: zone } }),
      );
      const kolkata = (at: number) => `${new Date(at + 5.5 * HOUR).toISOString().slice(0, 19)}+05:30`;
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(r.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="usage-${c.slug}-[0-9TZ-]+\\.csv"$`));
      const policyName = (await ctx.prisma.endpointPolicy.findUniqueOrThrow({ where: { id: policyOfC } })).name;
      const quoted = `"'${HOSTILE_NAME.replaceAll('"', '""')}"`;
      expect(r.body).toBe(
        [
          'bucket,bucket_local,time_zone,tenant,tenant_name,policy,result,reason,decisions,cost',
          `${iso(hour).replace('.000', '')},${kolkata(hour)},Asia/Kolkata,${c.slug},${quoted},${policyName},allowed,,11,22`,
          `${iso(hour + MINUTE).replace('.000', '')},${kolkata(hour + MINUTE)},Asia/Kolkata,${c.slug},${quoted},,denied,minute,1,0`,
          '',
        ].join('\n'),
      );
    });

    it('writes calendar days as dates, and every row across many batches', async () => {
      // More rows than one query of the export reads, in one hour of a fresh tenant.
      const { tenant } = await createTenant(ctx.prisma);
      const hour = base + 7 * HOUR;
      const rows = Array.from({ length: 5200 }, (_, i) => ({
        bucket: new Date(hour + (i % 60) * MINUTE),
        tenantId: tenant.id,
        policyId: null,
        result: 'denied' as const,
        reason: `limit-${Math.floor(i / 60)}`,
        decisions: 1n,
        cost: 0n,
      }));
      await ctx.prisma.usageMinute.createMany({ data: rows });
      const r = await usage({ tenant: tenant.slug, from: iso(hour), to: iso(hour + HOUR) }, '/v1/admin/usage.csv');
      const lines = (r.body as string).trimEnd().split('\n');
      expect(lines).toHaveLength(5201);
      expect(new Set(lines).size).toBe(5201);
      expect(lines.slice(1).map((l) => l.split(',')[0]!)).toEqual([...lines.slice(1).map((l) => l.split(',')[0]!)].sort());

      const day = new Date(Date.now() - 40 * DAY).toISOString().slice(0, 10);
      await insertDay(day, tenant.id, null, 'allowed', 8, 8);
      const byDay = await usage({ tenant: tenant.slug, from: iso(Date.now() - 60 * DAY), to: iso(Date.now() - 20 * DAY) }, '/v1/admin/usage.csv');
      expect(byDay.body).toBe(`bucket,bucket_local,time_zone,tenant,tenant_name,policy,result,reason,decisions,cost\n${day},${day},${tenant.timeZone},${tenant.slug},${tenant.name},,allowed,,8,8\n`);
    });
  });

  describe('the top', () => {
    // An hour of its own: A many decisions and the most denials, B few decisions at a high rate, C the most cost.
    let hour: number;
    beforeAll(async () => {
      hour = base + 9 * HOUR;
      await insert('usageMinute', hour, a.id, planPolicy, 'allowed', '', 900, 900);
      await insert('usageMinute', hour, a.id, planPolicy, 'denied', 'minute', 60);
      await insert('usageMinute', hour, a.id, null, 'denied', 'daily', 40);
      await insert('usageMinute', hour, b.id, planPolicy, 'allowed', '', 10, 10);
      await insert('usageMinute', hour, b.id, planPolicy, 'denied', 'minute', 40);
      await insert('usageMinute', hour, c.id, policyOfC, 'allowed', '', 170, 5000);
      await insert('usageMinute', hour, c.id, policyOfC, 'denied', 'minute', 30);
    });
    const top = async (query: Record<string, string | number>) => {
      const r = await usage({ from: iso(hour), to: iso(hour + HOUR), top: 100, ...query }, '/v1/admin/usage/top');
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const mine = new Set([a.id, b.id, c.id, planPolicy, policyOfA, policyOfC]);
      return (r.body.items as UsageTop['items']).filter((e) => mine.has(e.tenantId ?? '') || mine.has(e.policyId ?? ''));
    };

    it('ranks tenants by denials, with their slugs and names', async () => {
      const items = await top({ by: 'tenants', metric: 'denied' });
      expect(items).toEqual([
        { tenantId: a.id, tenant: { id: a.id, slug: a.slug, name: a.name }, policyId: null, policy: null, limit: null, decisions: 1000, denied: 100, denyRate: 0.1, cost: 900, refused: 0 },
        { tenantId: b.id, tenant: { id: b.id, slug: b.slug, name: b.name }, policyId: null, policy: null, limit: null, decisions: 50, denied: 40, denyRate: 0.8, cost: 10, refused: 0 },
        { tenantId: c.id, tenant: { id: c.id, slug: c.slug, name: c.name }, policyId: null, policy: null, limit: null, decisions: 200, denied: 30, denyRate: 0.15, cost: 5000, refused: 0 },
      ]);
    });

    it('ranks by deny rate only tenants with at least minDecisions decisions (100 by default)', async () => {
      expect((await top({ by: 'tenants', metric: 'deny_rate' })).map((e) => [e.tenantId, e.denyRate])).toEqual([[c.id, 0.15], [a.id, 0.1]]);
      expect((await top({ by: 'tenants', metric: 'deny_rate', minDecisions: 50 })).map((e) => e.tenantId)).toEqual([b.id, c.id, a.id]);
      expect((await top({ by: 'tenants', metric: 'deny_rate', minDecisions: 201 })).map((e) => e.tenantId)).toEqual([a.id]);
    });

    it('ranks by cost, and endpoint policies over every tenant', async () => {
      expect((await top({ by: 'tenants', metric: 'cost' })).map((e) => e.tenantId)).toEqual([c.id, a.id, b.id]);
      const policies = await top({ by: 'policies', metric: 'denied' });
      expect(policies.map((e) => [e.policyId, e.denied, e.decisions])).toEqual([[planPolicy, 100, 1010], [policyOfC, 30, 200]]);
      expect(policies[0]).toMatchObject({ tenant: null, policy: { id: planPolicy, method: 'GET' } });
    });

    it('ranks the limits that denied, each with its tenant and endpoint', async () => {
      const limits = await top({ by: 'limits', metric: 'denied' });
      expect(limits.map((e) => [e.tenantId, e.policyId, e.limit, e.denied])).toEqual([
        [a.id, planPolicy, 'minute', 60],
        [b.id, planPolicy, 'minute', 40],
        [a.id, null, 'daily', 40],
        [c.id, policyOfC, 'minute', 30],
      ]);
      // A rate over the decisions of its tenant and endpoint: B's minute limit refused 40 of B's 50.
      const rates = await top({ by: 'limits', metric: 'deny_rate', minDecisions: 1 });
      expect(rates.map((e) => [e.tenantId, e.limit, e.denyRate])).toEqual([
        [a.id, 'daily', 1],
        [b.id, 'minute', 0.8],
        [c.id, 'minute', 0.15],
        [a.id, 'minute', 60 / 960],
      ]);
      expect(limits[0]).toMatchObject({ tenant: { slug: a.slug }, policy: { id: planPolicy } });
    });

    it('ranks tenants by refused checks, keys of no one as a tenant of their own (null), and says each entry\'s refusals', async () => {
      const later = hour + 2 * HOUR;
      await insert('usageMinute', later, b.id, null, 'refused', 'key_invalid', 4);
      await insert('usageMinute', later, b.id, null, 'refused', 'tenant_not_allowed', 2);
      await insert('usageMinute', later, b.id, planPolicy, 'allowed', '', 3, 3);
      await insert('usageMinute', later, c.id, null, 'refused', 'key_expired', 1);
      await insert('usageMinute', later + MINUTE, null, null, 'refused', 'key_invalid', 7);
      const r = await usage({ from: iso(later), to: iso(later + HOUR), by: 'tenants', metric: 'refused', top: 100 }, '/v1/admin/usage/top');
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const items = r.body.items as UsageTop['items'];
      const mine = items.filter((e) => e.tenantId === b.id || e.tenantId === c.id);
      expect(mine.map((e) => [e.tenant?.slug, e.refused, e.decisions, e.denied])).toEqual([[b.slug, 6, 9, 0], [c.slug, 1, 1, 0]]);
      const nobody = items.find((e) => e.tenantId === null);
      expect(nobody).toMatchObject({ tenant: null, policyId: null, denied: 0, cost: 0 });
      expect(nobody!.refused).toBeGreaterThanOrEqual(7);
      // Ranked by the other metrics, entries say their refusals too; a tenant with only refusals ranks by refused alone.
      const denied = await usage({ from: iso(later), to: iso(later + HOUR), by: 'tenants', metric: 'cost', top: 100 }, '/v1/admin/usage/top');
      expect((denied.body.items as UsageTop['items']).filter((e) => e.tenantId === b.id || e.tenantId === c.id).map((e) => [e.tenantId, e.refused])).toEqual([[b.id, 6]]);
      // The series says them by reason: the tenant's own, and every tenant's and none's without one.
      const own = await usage({ tenant: b.slug, from: iso(later), to: iso(later + HOUR) });
      expect(own.body.refusedByReason).toEqual([{ reason: 'key_invalid', checks: 4 }, { reason: 'tenant_not_allowed', checks: 2 }]);
      const all = await usage({ from: iso(later), to: iso(later + HOUR) });
      expect(all.body.refusedByReason.find((x: { reason: string }) => x.reason === 'key_invalid').checks).toBeGreaterThanOrEqual(11);
      expect(all.body.points.reduce((n: number, p: { refused: number }) => n + p.refused, 0)).toBeGreaterThanOrEqual(14);
    });
  });

  describe('the denial samples', () => {
    const sample = (over: Partial<DenialSample>): DenialSample => ({ policyId: null, endpoint: 'GET /v1/items', subject: 'user-1', limit: 'minute', remaining: 0, result: 'denied', ...over });
    beforeAll(async () => {
      const now = Date.now();
      await redis.xadd(denialsKey(a.id), `${now - 3000}-0`, ...denialFields(sample({ policyId: planPolicy, endpoint: 'GET /items/1' })));
      await redis.xadd(denialsKey(a.id), `${now - 2000}-0`, ...denialFields(sample({ result: 'shadow_denied', policyId: policyOfA, limit: 'own-minute', remaining: 2 })));
      await redis.xadd(denialsKey(a.id), `${now - 1000}-0`, ...denialFields(sample({ subject: 'user-2', limit: 'daily' })));
    });

    it('answers the newest first, with policy names, and says they are sampled', async () => {
      const r = await usage({ tenant: a.slug, pageSize: 2 }, '/v1/admin/usage/denials');
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.sampled).toBe(true);
      expect(r.body.tenant).toEqual({ id: a.id, slug: a.slug, name: a.name });
      expect(r.body.items).toHaveLength(2);
      expect(r.body.items[0]).toMatchObject({ policyId: null, policy: null, subject: 'user-2', limit: 'daily', result: 'denied', remaining: 0 });
      expect(r.body.items[1]).toMatchObject({ policyId: policyOfA, policy: { id: policyOfA, method: 'POST' }, limit: 'own-minute', result: 'shadow_denied', remaining: 2 });
      expect(Date.parse(r.body.items[0].at)).toBeGreaterThan(Date.parse(r.body.items[1].at));
      // `limit`, the deprecated name of `pageSize`, is still read.
      expect((await usage({ tenant: a.slug, limit: 1 }, '/v1/admin/usage/denials')).body.items).toHaveLength(1);
    });

    it("shows a tenant its own samples only", async () => {
      const ofA = await get('/v1/tenant/usage/denials', tokens.userA);
      expect(ofA.body.items.map((s: { limit: string }) => s.limit)).toEqual(['daily', 'own-minute', 'minute']);
      expect(ofA.body.items[2].policy).toMatchObject({ id: planPolicy });
      const ofB = await get('/v1/tenant/usage/denials', tokens.userB);
      expect(ofB.status).toBe(200);
      expect(ofB.body).toEqual({ sampled: true, tenant: { id: b.id, slug: b.slug, name: b.name }, items: [] });
    });
  });

});
