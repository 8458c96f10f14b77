import { type PrismaClient } from '@tollgate/db';
import { PostgresUsageWriter, type UsageCount } from '@tollgate/usage';
import { beforeAll, describe, expect, it } from 'vitest';
import { useOperatorApi } from '../support/context';
import { createTenant, createTenantKey } from '../support/fixtures';

/** 2026-04-20 19:00 UTC = 00:30 on 21 April in Kolkata: the UTC date and the local date differ for the next 5 hours. */
const NIGHT = Date.UTC(2026, 3, 20, 19, 0) / 1000;
const minuteAt = (offsetMinutes: number) => NIGHT + offsetMinutes * 60;

type Sum = [string, string, string, bigint, bigint];

/** One tenant's rows of a usage table, summed per policy, result and reason (whatever their buckets). */
async function sums(prisma: PrismaClient, table: 'usage_minute' | 'usage_hour' | 'usage_day', tenantId: string): Promise<Sum[]> {
  const rows = await prisma.$queryRawUnsafe<{ policy_id: string | null; result: string; reason: string; decisions: bigint; cost: bigint }[]>(
    `SELECT policy_id::text, result::text, reason, sum(decisions)::bigint AS decisions, sum(cost)::bigint AS cost FROM ${table}
     WHERE tenant_id = $1::uuid GROUP BY 1, 2, 3 ORDER BY 1 NULLS FIRST, 2, 3`,
    tenantId,
  );
  return rows.map((r) => [r.policy_id ?? '-', r.result, r.reason, r.decisions, r.cost]);
}

/** Expects the tenant's minute rows to hold `expected`, and its hour and day rows the same sums. */
async function expectRowsAgree(prisma: PrismaClient, tenantId: string, expected: Sum[]): Promise<void> {
  expect(await sums(prisma, 'usage_minute', tenantId)).toEqual(expected);
  expect(await sums(prisma, 'usage_hour', tenantId)).toEqual(expected);
  expect(await sums(prisma, 'usage_day', tenantId)).toEqual(expected);
}

// Things deleted while their usage is still being rolled up count once: a tenant deleted mid-day (its last minutes
// reach Postgres after it is gone), a policy removed, a key revoked. Deleted through the API, as an operator does;
// the minutes are written by the usage writer the worker's rollup uses, before and after.
describe('deleted and moved things count once', () => {
  const ctx = useOperatorApi();
  let writer: PostgresUsageWriter;
  beforeAll(() => {
    writer = new PostgresUsageWriter(ctx.prisma, { now: () => NIGHT * 1000 + 3_600_000 });
  });
  const call = (method: string, path: string) => ctx.api.request(method, path, { token: ctx.session });
  const allowed = (policyId: string | null, decisions: number): UsageCount => ({ policyId, result: 'allowed', reason: '', decisions, cost: 2 * decisions });
  const denied = (policyId: string | null, decisions: number): UsageCount => ({ policyId, result: 'denied', reason: 'minute', decisions, cost: 0 });

  it('files a deleted tenant\'s last minutes under its own local day: its day rows equal its minute and hour rows', async () => {
    const { tenant } = await createTenant(ctx.prisma);
    // A tenant in Kolkata since before these minutes (no change of zone in its audit log).
    await ctx.prisma.tenant.update({ where: { id: tenant.id }, data: { timeZone: 'Asia/Kolkata' } });
    // 19:00 and 19:20 UTC are rolled up while the tenant exists: 21 April in Kolkata.
    await writer.writeMinute(minuteAt(0), new Map([[tenant.id, [allowed(null, 200), denied(null, 3)]]]));
    await writer.writeMinute(minuteAt(20), new Map([[tenant.id, [allowed(null, 39)]]]));
    expect((await call('DELETE', `/v1/admin/tenants/${tenant.id}`)).status).toBe(200);
    // Its last minutes reach Postgres after it is gone, one of them written again (a live write, then the final one).
    await writer.writeMinute(minuteAt(30), new Map([[tenant.id, [allowed(null, 100)]]]));
    await writer.writeMinute(minuteAt(31), new Map([[tenant.id, [allowed(null, 50), denied(null, 1)]]]));
    await writer.writeMinute(minuteAt(31), new Map([[tenant.id, [allowed(null, 100), denied(null, 1)]]]));

    await expectRowsAgree(ctx.prisma, tenant.id, [
      ['-', 'allowed', '', 439n, 878n],
      ['-', 'denied', 'minute', 4n, 0n],
    ]);
    // All of it on its local date, none on the UTC date.
    const days = await ctx.prisma.$queryRaw<{ day: string }[]>`SELECT DISTINCT day::text FROM usage_day WHERE tenant_id = ${tenant.id}::uuid`;
    expect(days).toEqual([{ day: '2026-04-21' }]);
    // The tenant's sums (what the top-N read) agree too.
    const [bySum] = await ctx.prisma.$queryRaw<{ decisions: bigint; cost: bigint }[]>`
      SELECT sum(decisions)::bigint AS decisions, sum(cost)::bigint AS cost FROM usage_by_tenant_day WHERE tenant_id = ${tenant.id}::uuid`;
    expect(bySum).toEqual({ decisions: 443n, cost: 878n });
  });

  it('files a tenant\'s minutes in the zone it had when each began: moved mid-day, its days still equal its minutes', async () => {
    const { tenant } = await createTenant(ctx.prisma);
    // A zone whose date differs from UTC's now (either side of the date line), so that the change moves the minutes
    // after it to another date.
    const zone = new Date().getUTCHours() < 10 ? 'Pacific/Pago_Pago' : 'Pacific/Kiritimati';
    const live = new PostgresUsageWriter(ctx.prisma);
    const now = Math.floor(Date.now() / 60_000) * 60;
    await live.writeMinute(now - 180, new Map([[tenant.id, [allowed(null, 30), denied(null, 2)]]]));
    expect((await ctx.api.request('PATCH', `/v1/admin/tenants/${tenant.id}`, { token: ctx.session, body: { timeZone: zone } })).status).toBe(200);
    // Minutes that begin after the change: the new zone's date. One written twice, and the one before written again.
    await live.writeMinute(now + 120, new Map([[tenant.id, [allowed(null, 5)]]]));
    await live.writeMinute(now + 180, new Map([[tenant.id, [allowed(null, 7)]]]));
    await live.writeMinute(now + 180, new Map([[tenant.id, [allowed(null, 9)]]]));
    await live.writeMinute(now - 180, new Map([[tenant.id, [allowed(null, 31), denied(null, 2)]]]));

    await expectRowsAgree(ctx.prisma, tenant.id, [
      ['-', 'allowed', '', 45n, 90n],
      ['-', 'denied', 'minute', 2n, 0n],
    ]);
    // Two dates: the UTC one of the minute before the change, the new zone's of those after it.
    const days = await ctx.prisma.$queryRaw<{ day: string; decisions: bigint }[]>`
      SELECT day::text, sum(decisions)::bigint AS decisions FROM usage_day WHERE tenant_id = ${tenant.id}::uuid GROUP BY 1 ORDER BY 1`;
    const date = (ms: number, timeZone: string) => new Intl.DateTimeFormat('en-CA', { timeZone }).format(ms);
    expect(Object.fromEntries(days.map((d) => [d.day, d.decisions]))).toEqual({ [date(now * 1000 - 180_000, 'UTC')]: 33n, [date(now * 1000 + 120_000, zone)]: 14n });
  });

  it('keeps a removed policy\'s and a revoked key\'s counts: minutes, hours and days still agree', async () => {
    const { tenant, plan } = await createTenant(ctx.prisma);
    const policy = await ctx.prisma.endpointPolicy.create({ data: { planId: plan.id, name: 'gone', method: 'GET', pattern: '/gone', limits: { create: [{ name: 'minute', windowS: 60, limit: 10 }] } } });
    const key = await createTenantKey(ctx.prisma, tenant.id);
    const keys = (decisions: number) => new Map([[tenant.id, new Map([[key.id, { decisions, denied: 0, other: 0 }]])]]);
    await writer.writeMinute(minuteAt(0), new Map([[tenant.id, [allowed(policy.id, 5)]]]), keys(5));
    expect((await call('DELETE', `/v1/admin/policies/${policy.id}`)).status).toBe(200);
    expect((await call('POST', `/v1/admin/keys/${key.id}/revoke`)).status).toBe(200);
    await writer.writeMinute(minuteAt(1), new Map([[tenant.id, [allowed(policy.id, 3), denied(policy.id, 2)]]]), keys(5));
    await writer.writeMinute(minuteAt(0), new Map([[tenant.id, [allowed(policy.id, 6)]]]), keys(6));

    await expectRowsAgree(ctx.prisma, tenant.id, [
      [policy.id, 'allowed', '', 9n, 18n],
      [policy.id, 'denied', 'minute', 2n, 0n],
    ]);
    const keyRows = async (table: 'key_usage_minute' | 'key_usage_hour') =>
      (await ctx.prisma.$queryRawUnsafe<{ decisions: bigint }[]>(`SELECT coalesce(sum(decisions), 0)::bigint AS decisions FROM ${table} WHERE key_id = $1::uuid`, key.id))[0]!.decisions;
    expect(await keyRows('key_usage_minute')).toBe(11n);
    expect(await keyRows('key_usage_hour')).toBe(11n);
  });
});
