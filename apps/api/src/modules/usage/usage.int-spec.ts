import { randomUUID } from 'node:crypto';
import type { UsageTop } from '@tollgate/domain';
import { denialFields, denialsKey, type DenialSample, type UsageResult } from '@tollgate/usage';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../../../../../test/support/context';
import { TEST_REDIS_URL } from '../../../../../test/support/env';
import { createTenant, createTenantKey, publishRules } from '../../../../../test/support/fixtures';

const MINUTE = 60_000;
const HOUR = 3600_000;
const DAY = 86_400_000;

// The usage API reads what the worker rolled up: rows are written here straight into the rollup tables (and denial
// samples into the tenant's stream), as the worker and the API nodes would. Rows of other test files may share the
// tables: every assertion reads a fresh tenant's rows, a fresh policy's, or a range of hours no other file writes
// (a random hour two to three days ago).
describe('usage API', () => {
  const ctx = useOperatorApi();
  let redis: Redis;
  /** Tenants A and B share a plan and its policy; C (its own plan, Asia/Kolkata) has a hostile name. */
  let a: { id: string; slug: string; name: string };
  let b: { id: string; slug: string; name: string };
  let c: { id: string; slug: string; name: string };
  let planPolicy: string;
  let policyOfA: string;
  let policyOfC: string;
  const tokens: Record<string, string> = {};
  /** The start of an hour two to three days ago: the rows of the minute and hour tests are after it. */
  let base: number;

  const HOSTILE_NAME = `=cmd|' /C calc'!A0, "Acme" Ltd ${randomUUID().slice(0, 4)}`;

  const iso = (ms: number) => new Date(ms).toISOString();
  const get = (path: string, token = ctx.session) => ctx.api.request('GET', path, { token });
  const usage = (query: Record<string, string | number>, path = '/v1/admin/usage', token = ctx.session) =>
    get(`${path}?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`, token);

  type Table = 'usageMinute' | 'usageHour';
  async function insert(table: Table, at: number, tenantId: string | null, policyId: string | null, result: UsageResult, reason: string, decisions: number, cost = 0) {
    const data = { bucket: new Date(at), tenantId, policyId, result, reason, decisions: BigInt(decisions), cost: BigInt(cost) };
    if (table === 'usageMinute') await ctx.prisma.usageMinute.create({ data });
    else await ctx.prisma.usageHour.create({ data });
  }
  async function insertDay(day: string, tenantId: string, policyId: string | null, result: UsageResult, decisions: number, cost = 0) {
    await ctx.prisma.usageDay.create({ data: { day: new Date(`${day}T00:00:00Z`), tenantId, policyId, result, reason: '', decisions: BigInt(decisions), cost: BigInt(cost) } });
  }

  beforeAll(async () => {
    redis = new Redis(TEST_REDIS_URL);
    const first = await createTenant(ctx.prisma);
    a = first.tenant;
    b = await ctx.prisma.tenant.create({ data: { slug: `usage-b-${randomUUID().slice(0, 8)}`, name: 'Tenant B', planId: first.plan.id } });
    const third = await createTenant(ctx.prisma);
    c = await ctx.prisma.tenant.update({ where: { id: third.tenant.id }, data: { name: HOSTILE_NAME, timeZone: 'Asia/Kolkata' } });
    const suffix = randomUUID().slice(0, 8);
    planPolicy = (await ctx.prisma.endpointPolicy.create({ data: { planId: first.plan.id, name: `items${suffix}`, method: 'GET', pattern: `/items-${suffix}/*` } })).id;
    policyOfA = (await ctx.prisma.endpointPolicy.create({ data: { tenantId: a.id, name: `own${suffix}`, method: 'POST', pattern: `/own-${suffix}` } })).id;
    policyOfC = (await ctx.prisma.endpointPolicy.create({ data: { tenantId: c.id, name: `export${suffix}`, method: 'GET', pattern: `/export-${suffix}` } })).id;
    tokens.userA = await ctx.signIn('tenant', a.id);
    tokens.userB = await ctx.signIn('tenant', b.id);
    tokens.keyA = (await createTenantKey(ctx.prisma, a.id)).key;
    const { version } = await publishRules(ctx.prisma, TEST_REDIS_URL);
    await ctx.api.waitForRuleVersion(version);

    base = Math.floor((Date.now() - 2 * DAY) / HOUR) * HOUR - Math.floor(Math.random() * 24) * HOUR;
    // Minutes 1 and 3 after `base`: A and B through the plan's policy, A alone through its own; nothing in 0, 2, 4.
    await insert('usageMinute', base + 1 * MINUTE, a.id, planPolicy, 'allowed', '', 5, 15);
    await insert('usageMinute', base + 1 * MINUTE, a.id, planPolicy, 'denied', 'minute', 2);
    await insert('usageMinute', base + 1 * MINUTE, b.id, planPolicy, 'allowed', '', 7, 7);
    await insert('usageMinute', base + 3 * MINUTE, a.id, policyOfA, 'shadow_denied', 'own-minute', 1, 1);
    await insert('usageMinute', base + 3 * MINUTE, a.id, null, 'degraded_allowed', 'open', 4, 4);
    await insert('usageMinute', base + 3 * MINUTE, a.id, null, 'degraded_denied', 'local', 1);
    await insert('usageMinute', base + 3 * MINUTE, a.id, null, 'refused', 'tenant_suspended', 3);
    await insert('usageMinute', base + 3 * MINUTE, b.id, planPolicy, 'denied', 'daily', 6);
    // Hours 2 and 4 after `base`.
    await insert('usageHour', base + 2 * HOUR, a.id, null, 'allowed', '', 100, 300);
    await insert('usageHour', base + 4 * HOUR, a.id, null, 'denied', 'minute', 9);
  });
  afterAll(async () => {
    redis?.disconnect();
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
      expect(r.body).toBe(
        [
          'bucket,tenant,policy,result,reason,decisions,cost',
          `${iso(base + MINUTE).replace('.000', '')},Tenant B,${(await ctx.prisma.endpointPolicy.findUniqueOrThrow({ where: { id: planPolicy } })).name},allowed,,7,7`,
          `${iso(base + 3 * MINUTE).replace('.000', '')},Tenant B,${(await ctx.prisma.endpointPolicy.findUniqueOrThrow({ where: { id: planPolicy } })).name},denied,daily,6,0`,
          '',
        ].join('\n'),
      );
    });
  });

  describe('the CSV export', () => {
    it('quotes names and defuses formulas, as an attachment', async () => {
      const hour = base + 6 * HOUR;
      await insert('usageMinute', hour, c.id, policyOfC, 'allowed', '', 11, 22);
      await insert('usageMinute', hour + MINUTE, c.id, null, 'denied', 'minute', 1);
      const r = await usage({ tenant: c.slug, from: iso(hour), to: iso(hour + 10 * MINUTE) }, '/v1/admin/usage.csv');
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(r.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="usage-${c.slug}-[0-9TZ-]+\\.csv"$`));
      const policyName = (await ctx.prisma.endpointPolicy.findUniqueOrThrow({ where: { id: policyOfC } })).name;
      const quoted = `"'${HOSTILE_NAME.replaceAll('"', '""')}"`;
      expect(r.body).toBe(
        [
          'bucket,tenant,policy,result,reason,decisions,cost',
          `${iso(hour).replace('.000', '')},${quoted},${policyName},allowed,,11,22`,
          `${iso(hour + MINUTE).replace('.000', '')},${quoted},,denied,minute,1,0`,
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
      expect(byDay.body).toBe(`bucket,tenant,policy,result,reason,decisions,cost\n${day},${tenant.name},,allowed,,8,8\n`);
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
      const r = await usage({ from: iso(hour), to: iso(hour + HOUR), limit: 100, ...query }, '/v1/admin/usage/top');
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const mine = new Set([a.id, b.id, c.id, planPolicy, policyOfA, policyOfC]);
      return (r.body.items as UsageTop['items']).filter((e) => mine.has(e.tenantId ?? '') || mine.has(e.policyId ?? ''));
    };

    it('ranks tenants by denials, with their slugs and names', async () => {
      const items = await top({ by: 'tenants', metric: 'denied' });
      expect(items).toEqual([
        { tenantId: a.id, tenant: { id: a.id, slug: a.slug, name: a.name }, policyId: null, policy: null, limit: null, decisions: 1000, denied: 100, denyRate: 0.1, cost: 900 },
        { tenantId: b.id, tenant: { id: b.id, slug: b.slug, name: b.name }, policyId: null, policy: null, limit: null, decisions: 50, denied: 40, denyRate: 0.8, cost: 10 },
        { tenantId: c.id, tenant: { id: c.id, slug: c.slug, name: c.name }, policyId: null, policy: null, limit: null, decisions: 200, denied: 30, denyRate: 0.15, cost: 5000 },
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
      const r = await usage({ tenant: a.slug, limit: 2 }, '/v1/admin/usage/denials');
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.sampled).toBe(true);
      expect(r.body.tenant).toEqual({ id: a.id, slug: a.slug, name: a.name });
      expect(r.body.items).toHaveLength(2);
      expect(r.body.items[0]).toMatchObject({ policyId: null, policy: null, subject: 'user-2', limit: 'daily', result: 'denied', remaining: 0 });
      expect(r.body.items[1]).toMatchObject({ policyId: policyOfA, policy: { id: policyOfA, method: 'POST' }, limit: 'own-minute', result: 'shadow_denied', remaining: 2 });
      expect(Date.parse(r.body.items[0].at)).toBeGreaterThan(Date.parse(r.body.items[1].at));
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
        ['/v1/admin/usage/top', { limit: '101' }, 'limit'],
        ['/v1/admin/usage/top', { limit: '0' }, 'limit'],
        ['/v1/admin/usage/top', { minDecisions: '0' }, 'minDecisions'],
        ['/v1/admin/usage/top', { minDecisions: 'many' }, 'minDecisions'],
        ['/v1/admin/usage/top', { tenant: a.slug }, undefined],
        ['/v1/admin/usage/denials', {}, 'tenant'],
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
