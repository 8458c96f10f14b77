import { randomUUID } from 'node:crypto';
import { Prisma, type PrismaClient } from '@tollgate/db';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { emptyUsageTables, utcAndKolkataTenants } from '../../../test/support/fixtures';
import { useOwnDatabase } from '../../../test/support/own-database';
import type { UsageCount } from './fields';
import { NO_TENANT } from './keys';
import { PostgresUsageWriter } from './postgres-writer';

/** 2026-03-10 18:00 UTC = 23:30 in Kolkata: the half hour after it is the next local day there. */
const EVENING = Date.UTC(2026, 2, 10, 18, 0) / 1000;
const minuteAt = (offsetMinutes: number) => EVENING + offsetMinutes * 60;

type Key = Pick<UsageCount, 'policyId' | 'result' | 'reason'>;
const count = (key: Key, decisions: number, cost = 0): UsageCount => ({ ...key, decisions, cost });

describe('PostgresUsageWriter', () => {
  let prisma: PrismaClient;
  let writer: PostgresUsageWriter;
  let utcTenant: string;
  let kolkataTenant: string;
  const policy = randomUUID();
  const allowed: Key = { policyId: policy, result: 'allowed', reason: '' };
  const denied: Key = { policyId: policy, result: 'denied', reason: 'minute' };
  const unmatched: Key = { policyId: null, result: 'allowed', reason: '' };
  const refused: Key = { policyId: null, result: 'refused', reason: 'key_invalid' };

  const minutes = () =>
    prisma.$queryRaw<{ id: bigint; bucket: Date; tenant_id: string | null; policy_id: string | null; result: string; reason: string; decisions: bigint; cost: bigint }[]>`
      SELECT id, bucket, tenant_id::text, policy_id::text, result::text, reason, decisions, cost FROM usage_minute
      ORDER BY bucket, tenant_id NULLS FIRST, policy_id NULLS FIRST, result, reason`;
  const hours = () =>
    prisma.$queryRaw<{ bucket: Date; tenant_id: string | null; policy_id: string | null; result: string; reason: string; decisions: bigint; cost: bigint }[]>`
      SELECT bucket, tenant_id::text, policy_id::text, result::text, reason, decisions, cost FROM usage_hour
      ORDER BY bucket, tenant_id NULLS FIRST, policy_id NULLS FIRST, result, reason`;
  const days = () =>
    prisma.$queryRaw<{ day: string; tenant_id: string | null; policy_id: string | null; result: string; reason: string; decisions: bigint; cost: bigint }[]>`
      SELECT day::text, tenant_id::text, policy_id::text, result::text, reason, decisions, cost FROM usage_day
      ORDER BY day, tenant_id NULLS FIRST, policy_id NULLS FIRST, result, reason`;

  /**
   * The totals over every tenant are the sums of the tenants' rows, bucket by bucket and result by result (each of
   * the three tables against its own granularity).
   */
  const expectTotalsInLine = async () => {
    for (const [totals, rows, bucket] of [
      ['usage_total_minute', 'usage_minute', 'bucket'],
      ['usage_total_hour', 'usage_hour', 'bucket'],
      ['usage_total_day', 'usage_day', 'day'],
    ] as const) {
      const [t, r, b] = [Prisma.raw(totals), Prisma.raw(rows), Prisma.raw(bucket)];
      const stored = await prisma.$queryRaw<unknown[]>`SELECT ${b}::text AS b, result::text, decisions, cost FROM ${t} ORDER BY 1, 2`;
      const sums = await prisma.$queryRaw<unknown[]>`
        SELECT ${b}::text AS b, result::text, sum(decisions)::bigint AS decisions, sum(cost)::bigint AS cost FROM ${r} GROUP BY 1, 2 ORDER BY 1, 2`;
      expect(stored, totals).toEqual(sums);
      expect(sums.length, rows).toBeGreaterThan(0);
    }
    // And per tenant and per policy, which the top-N read.
    for (const [granularity, bucket] of [['minute', 'bucket'], ['hour', 'bucket'], ['day', 'day']] as const) {
      for (const owner of ['tenant', 'policy'] as const) {
        const [b, id] = [Prisma.raw(bucket), Prisma.raw(`${owner}_id`)];
        const stored = await prisma.$queryRaw<unknown[]>`
          SELECT ${b}::text AS b, ${id}::text AS id, decisions, denied, cost FROM ${Prisma.raw(`usage_by_${owner}_${granularity}`)} ORDER BY 1, 2`;
        const sums = await prisma.$queryRaw<unknown[]>`
          SELECT ${b}::text AS b, ${id}::text AS id, sum(decisions)::bigint AS decisions,
            coalesce(sum(decisions) FILTER (WHERE result = 'denied'), 0)::bigint AS denied, sum(cost)::bigint AS cost
          FROM ${Prisma.raw(`usage_${granularity}`)} WHERE ${id} IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2`;
        expect(stored, `usage_by_${owner}_${granularity}`).toEqual(sums);
      }
    }
  };

  // A database of this file's own: it empties the usage tables between tests.
  useOwnDatabase('usage_writer', (client) => (prisma = client));
  beforeAll(async () => {
    writer = new PostgresUsageWriter(prisma, { now: () => EVENING * 1000 + 3_600_000 });
    [utcTenant, kolkataTenant] = await utcAndKolkataTenants(prisma);
  });
  beforeEach(() => emptyUsageTables(prisma));

  it('stores a minute as its counts: one row per tenant, policy, result and reason; none and no tenant as null', async () => {
    await writer.writeMinute(minuteAt(0), new Map([
      [utcTenant, [count(allowed, 7, 21), count(denied, 2), count(unmatched, 1, 1)]],
      [NO_TENANT, [count(refused, 4)]],
    ]));
    const bucket = new Date(minuteAt(0) * 1000);
    expect((await minutes()).map(({ id: _id, ...row }) => row)).toEqual([
      { bucket, tenant_id: null, policy_id: null, result: 'refused', reason: 'key_invalid', decisions: 4n, cost: 0n },
      { bucket, tenant_id: utcTenant, policy_id: null, result: 'allowed', reason: '', decisions: 1n, cost: 1n },
      { bucket, tenant_id: utcTenant, policy_id: policy, result: 'allowed', reason: '', decisions: 7n, cost: 21n },
      { bucket, tenant_id: utcTenant, policy_id: policy, result: 'denied', reason: 'minute', decisions: 2n, cost: 0n },
    ]);
    await expectTotalsInLine();
  });

  it('leaves the same rows when the same minute is written twice, and replaces them with absolute values', async () => {
    const counts = new Map([[utcTenant, [count(allowed, 7, 21), count(denied, 2)]], [NO_TENANT, [count(refused, 4)]]]);
    await writer.writeMinute(minuteAt(0), counts);
    const first = { minutes: await minutes(), hours: await hours(), days: await days() };
    await writer.writeMinute(minuteAt(0), counts);
    expect({ minutes: await minutes(), hours: await hours(), days: await days() }).toEqual(first);
    // The sums per tenant and per policy move by what a write changed: nothing here.
    await expectTotalsInLine();

    // The tenant's hash now holds more allowed and no denial: the denial's row goes, the other tenant's stays.
    await writer.writeMinute(minuteAt(0), new Map([[utcTenant, [count(allowed, 9, 27)]]]));
    expect((await minutes()).map((r) => [r.tenant_id, r.result, r.decisions, r.cost])).toEqual([
      [null, 'refused', 4n, 0n],
      [utcTenant, 'allowed', 9n, 27n],
    ]);
    expect((await hours()).map((r) => [r.tenant_id, r.result, r.decisions, r.cost])).toEqual([
      [null, 'refused', 4n, 0n],
      [utcTenant, 'allowed', 9n, 27n],
    ]);
    await expectTotalsInLine();
    // A tenant listed with nothing counted has no rows left in the minute, its hour or its day.
    await writer.writeMinute(minuteAt(0), new Map([[utcTenant, []]]));
    expect((await minutes()).map((r) => r.tenant_id)).toEqual([null]);
    expect((await hours()).map((r) => r.tenant_id)).toEqual([null]);
    expect((await days()).map((r) => r.tenant_id)).toEqual([null]);
    await expectTotalsInLine();
  });

  it('keeps the other minutes\' part of an hour and a day when a minute written again no longer has a key', async () => {
    await writer.writeMinute(minuteAt(0), new Map([[kolkataTenant, [count(allowed, 1, 1), count(denied, 2)]]]));
    await writer.writeMinute(minuteAt(45), new Map([[kolkataTenant, [count(denied, 3)]]]));
    await writer.writeMinute(minuteAt(0), new Map([[kolkataTenant, [count(allowed, 1, 1)]]]));
    const view = (rows: { result: string; decisions: bigint }[]) => rows.map((r) => [r.result, r.decisions]);
    expect(view(await hours())).toEqual([['allowed', 1n], ['denied', 3n]]);
    // 18:00 and 18:45 UTC are two days in Kolkata: the first keeps only its allowed row.
    expect((await days()).map((r) => [r.day, r.result, r.decisions])).toEqual([['2026-03-10', 'allowed', 1n], ['2026-03-11', 'denied', 3n]]);
    await expectTotalsInLine();
  });

  it('makes each hour the sum of its minutes and each day the sum of its minutes in the tenant\'s time zone', async () => {
    const unknownTenant = randomUUID();
    // 17:58 … 18:45 UTC: two UTC hours; in Kolkata 23:28 … 00:15, two local days split at 18:30 UTC.
    const written = [-2, -1, 0, 10, 29, 30, 31, 45];
    for (const [i, offset] of written.entries()) {
      await writer.writeMinute(minuteAt(offset), new Map([
        [utcTenant, [count(allowed, i + 1, 2 * (i + 1))]],
        [kolkataTenant, [count(allowed, 10 * (i + 1), 10 * (i + 1)), count(denied, 1)]],
        [unknownTenant, [count(unmatched, 1)]],
        [NO_TENANT, [count(refused, 1)]],
      ]));
    }
    const sum = (offsets: number[], f: (i: number) => number) =>
      BigInt(written.reduce((total, offset, i) => (offsets.includes(offset) ? total + f(i) : total), 0));
    const at = <R extends { tenant_id: string | null; result: string }>(rows: R[], tenant: string | null, result = 'allowed') =>
      rows.filter((r) => r.tenant_id === tenant && r.result === result);

    const before18 = [-2, -1];
    const after18 = [0, 10, 29, 30, 31, 45];
    const hourRows = await hours();
    expect(at(hourRows, utcTenant).map((r) => [r.bucket.toISOString(), r.decisions])).toEqual([
      ['2026-03-10T17:00:00.000Z', sum(before18, (i) => i + 1)],
      ['2026-03-10T18:00:00.000Z', sum(after18, (i) => i + 1)],
    ]);
    expect(at(hourRows, kolkataTenant, 'denied').map((r) => r.decisions)).toEqual([2n, 6n]);

    const dayRows = await days();
    // UTC: one day. Kolkata: 10 March until 18:29 UTC, 11 March from 18:30 UTC.
    expect(at(dayRows, utcTenant).map((r) => [r.day, r.decisions, r.cost])).toEqual([
      ['2026-03-10', sum(written, (i) => i + 1), sum(written, (i) => 2 * (i + 1))],
    ]);
    expect(at(dayRows, kolkataTenant).map((r) => [r.day, r.decisions])).toEqual([
      ['2026-03-10', sum([-2, -1, 0, 10, 29], (i) => 10 * (i + 1))],
      ['2026-03-11', sum([30, 31, 45], (i) => 10 * (i + 1))],
    ]);
    expect(at(dayRows, kolkataTenant, 'denied').map((r) => [r.day, r.decisions])).toEqual([['2026-03-10', 5n], ['2026-03-11', 3n]]);
    // An id of no tenant (none audited as deleted either), and no tenant at all, count UTC days.
    expect(at(dayRows, unknownTenant).map((r) => [r.day, r.decisions])).toEqual([['2026-03-10', 8n]]);
    expect(at(dayRows, null, 'refused').map((r) => [r.day, r.decisions])).toEqual([['2026-03-10', 8n]]);

    // Every total agrees across the three tables.
    const total = (rows: { decisions: bigint }[]) => rows.reduce((t, r) => t + r.decisions, 0n);
    expect(total(hourRows)).toBe(total(await minutes()));
    expect(total(dayRows)).toBe(total(await minutes()));
    await expectTotalsInLine();
  });

  it('leaves out ids that are not UUIDs and reasons Postgres cannot hold, and writes the rest', async () => {
    await writer.writeMinute(minuteAt(0), new Map([
      ['not-a-tenant', [count(allowed, 1)]],
      [utcTenant.toUpperCase(), [count({ policyId: 'x', result: 'allowed', reason: '' }, 1), count({ ...denied, reason: 'a\u0000b' }, 1), count(allowed, 3)]],
    ]));
    expect((await minutes()).map((r) => [r.tenant_id, r.policy_id, r.decisions])).toEqual([[utcTenant, policy, 3n]]);
  });

  it('moves an hour whose older minutes retention already deleted by the difference, keeping what they added', async () => {
    // Minutes of 18:00 and 18:10, then the 18:00 minute deleted as a short minute retention would.
    await writer.writeMinute(minuteAt(0), new Map([[utcTenant, [count(allowed, 5, 5)]]]));
    await writer.writeMinute(minuteAt(10), new Map([[utcTenant, [count(allowed, 1, 1)]]]));
    await prisma.$executeRaw`DELETE FROM usage_minute WHERE bucket = ${new Date(minuteAt(0) * 1000)}`;
    for (const sums of ['usage_total_minute', 'usage_by_tenant_minute', 'usage_by_policy_minute']) {
      await prisma.$executeRaw`DELETE FROM ${Prisma.raw(sums)} WHERE bucket = ${new Date(minuteAt(0) * 1000)}`;
    }

    // A day later, with minutes kept one day: the hour started before what is still kept.
    const late = new PostgresUsageWriter(prisma, { minuteRetentionDays: 1, now: () => (EVENING + 86_400) * 1000 });
    const rewritten = new Map([[utcTenant, [count(allowed, 3, 3), count(denied, 2)]]]);
    await late.writeMinute(minuteAt(10), rewritten);
    await late.writeMinute(minuteAt(10), rewritten);
    const view = (rows: { result: string; decisions: bigint; cost: bigint }[]) => rows.map((r) => [r.result, r.decisions, r.cost]);
    expect(view(await hours())).toEqual([['allowed', 8n, 8n], ['denied', 2n, 0n]]);
    expect(view(await days())).toEqual([['allowed', 8n, 8n], ['denied', 2n, 0n]]);
    expect(view(await minutes())).toEqual([['allowed', 3n, 3n], ['denied', 2n, 0n]]);
    await expectTotalsInLine();
  });

  it('deletes only what is older than each retention, in batches', async () => {
    const now = new Date(Date.UTC(2026, 5, 1, 12));
    const daysAgo = (n: number) => new Date(now.getTime() - n * 86_400_000);
    // More old minutes than one batch deletes, and one minute, hour and day on each side of its limit.
    await prisma.$executeRaw`
      INSERT INTO usage_minute (bucket, tenant_id, result, decisions, cost)
      SELECT ${daysAgo(8)}::timestamptz - make_interval(mins => g), ${utcTenant}::uuid, 'allowed', 1, 0 FROM generate_series(1, 12000) g`;
    await prisma.$executeRaw`
      INSERT INTO usage_minute (bucket, tenant_id, result, decisions, cost) VALUES
        (${new Date(daysAgo(7).getTime() - 60_000)}, ${utcTenant}::uuid, 'allowed', 1, 0),
        (${new Date(daysAgo(7).getTime() + 60_000)}, ${utcTenant}::uuid, 'allowed', 1, 0)`;
    await prisma.$executeRaw`
      INSERT INTO usage_hour (bucket, tenant_id, result, decisions, cost) VALUES
        (${daysAgo(91)}, ${utcTenant}::uuid, 'allowed', 1, 0), (${daysAgo(89)}, ${utcTenant}::uuid, 'allowed', 1, 0)`;
    await prisma.$executeRaw`
      INSERT INTO usage_day (day, tenant_id, result, decisions, cost) VALUES
        ('2025-04-26', ${utcTenant}::uuid, 'allowed', 1, 0), ('2025-04-27', ${utcTenant}::uuid, 'allowed', 1, 0)`;

    // A total of each granularity past its retention, and one within it.
    await prisma.$executeRaw`
      INSERT INTO usage_total_minute (bucket, result, decisions, cost) VALUES (${daysAgo(8)}, 'allowed', 1, 0), (${daysAgo(6)}, 'allowed', 1, 0)`;
    await prisma.$executeRaw`
      INSERT INTO usage_total_hour (bucket, result, decisions, cost) VALUES (${daysAgo(91)}, 'allowed', 1, 0), (${daysAgo(89)}, 'allowed', 1, 0)`;
    await prisma.$executeRaw`INSERT INTO usage_total_day (day, result, decisions, cost) VALUES ('2025-04-26', 'allowed', 1, 0), ('2025-04-27', 'allowed', 1, 0)`;
    // And a tenant's sum and a policy's of each granularity past it, and one within it.
    for (const [granularity, bucket, past, kept] of [
      ['minute', 'bucket', daysAgo(8), daysAgo(6)],
      ['hour', 'bucket', daysAgo(91), daysAgo(89)],
      ['day', 'day', new Date('2025-04-26'), new Date('2025-04-27')],
    ] as const) {
      for (const [owner, id] of [['tenant', utcTenant], ['policy', randomUUID()]] as const) {
        await prisma.$executeRaw`
          INSERT INTO ${Prisma.raw(`usage_by_${owner}_${granularity}`)} (${Prisma.raw(bucket)}, ${Prisma.raw(`${owner}_id`)}, decisions, denied, cost)
          VALUES (${past}, ${id}::uuid, 1, 0, 0), (${kept}, ${id}::uuid, 1, 0, 0)`;
      }
    }

    expect(await writer.deleteExpired(now, { minuteDays: 7, hourDays: 90, dayDays: 400 })).toEqual({ minutes: 12_001, hours: 1, days: 1, keyMinutes: 0, keyHours: 0, routeMinutes: 0, routeHours: 0, routeDays: 0, totals: 9 });
    expect((await minutes()).map((r) => r.bucket)).toEqual([new Date(daysAgo(7).getTime() + 60_000)]);
    expect((await hours()).map((r) => r.bucket)).toEqual([daysAgo(89)]);
    // 400 days before 2026-06-01 is 2025-04-27: that day is kept, the one before goes.
    expect((await days()).map((r) => r.day)).toEqual(['2025-04-27']);
    const kept = await prisma.$queryRaw<{ n: bigint }[]>`
      SELECT (SELECT count(*) FROM usage_by_tenant_minute) + (SELECT count(*) FROM usage_by_policy_minute) + (SELECT count(*) FROM usage_by_tenant_hour)
        + (SELECT count(*) FROM usage_by_policy_hour) + (SELECT count(*) FROM usage_by_tenant_day) + (SELECT count(*) FROM usage_by_policy_day) AS n`;
    expect(kept[0]!.n).toBe(6n);
    expect(await writer.deleteExpired(now, { minuteDays: 7, hourDays: 90, dayDays: 400 })).toEqual({ minutes: 0, hours: 0, days: 0, keyMinutes: 0, keyHours: 0, routeMinutes: 0, routeHours: 0, routeDays: 0, totals: 0 });
  });
});
