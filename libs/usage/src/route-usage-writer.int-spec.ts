import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '@tollgate/db';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { emptyUsageTables, utcAndKolkataTenants } from '../../../test/support/fixtures';
import { useOwnDatabase } from '../../../test/support/own-database';
import type { RouteCount, UsageCount } from './fields';
import { KEY_USAGE_NO_TENANT } from './key-usage-writer';
import { NO_TENANT } from './keys';
import { PostgresUsageWriter } from './postgres-writer';

/** 2026-03-10 18:00 UTC = 23:30 in Kolkata: the half hour after it is the next local day there. */
const EVENING = Date.UTC(2026, 2, 10, 18, 0) / 1000;
const minuteAt = (offsetMinutes: number) => EVENING + offsetMinutes * 60;

const items = (decisions: number): RouteCount => ({ route: 'GET /v1/items', result: 'allowed', reason: '', decisions });
const itemsDenied = (decisions: number): RouteCount => ({ route: 'GET /v1/items', result: 'denied', reason: 'minute', decisions });
const orders = (decisions: number): RouteCount => ({ route: 'POST /v1/orders', result: 'allowed', reason: '', decisions });
const refused = (decisions: number): RouteCount => ({ route: 'GET /v1/items', result: 'refused', reason: 'key_invalid', decisions });
/** The decisions of a minute as the rollup hands them over with its routes (the writer keys a minute's tenants by them). */
const decisionsOf = (routes: RouteCount[]): UsageCount[] =>
  routes.length === 0 ? [] : [{ policyId: null, result: 'allowed', reason: '', decisions: routes.reduce((t, r) => t + r.decisions, 0), cost: 0 }];

// The decisions per route of a minute are written with its decisions (PostgresUsageWriter.writeMinute): absolute values
// per tenant, minute, route, result and reason, the hour as the sum of its minutes and the day, in the tenant's time
// zone, as the sum of its whole hours and the minutes at its edges — as `usage_hour` and `usage_day` are made.
describe('per-route usage in PostgresUsageWriter', () => {
  let prisma: PrismaClient;
  let writer: PostgresUsageWriter;
  let utcTenant: string;
  let kolkataTenant: string;

  const write = (w: PostgresUsageWriter, minute: number, routes: Map<string, RouteCount[]>) =>
    w.writeMinute(minute, new Map([...routes].map(([tenant, r]) => [tenant, decisionsOf(r)])), new Map(), routes);
  const table = (name: 'usage_route_minute' | 'usage_route_hour') =>
    prisma.$queryRawUnsafe<{ bucket: Date; tenant_id: string; route: string; result: string; reason: string; decisions: bigint }[]>(
      `SELECT bucket, tenant_id::text, route, result::text, reason, decisions FROM ${name} ORDER BY bucket, tenant_id, route, result, reason`,
    );
  const days = () =>
    prisma.$queryRaw<{ day: string; tenant_id: string; route: string; result: string; reason: string; decisions: bigint }[]>`
      SELECT day::text, tenant_id::text, route, result::text, reason, decisions FROM usage_route_day ORDER BY day, tenant_id, route, result, reason`;
  const all = async () => ({ minutes: await table('usage_route_minute'), hours: await table('usage_route_hour'), days: await days() });

  // A database of this file's own: it empties the usage tables between tests.
  useOwnDatabase('route_usage_writer', (client) => (prisma = client));
  beforeAll(async () => {
    writer = new PostgresUsageWriter(prisma, { now: () => EVENING * 1000 + 3_600_000 });
    [utcTenant, kolkataTenant] = await utcAndKolkataTenants(prisma);
  });
  beforeEach(() => emptyUsageTables(prisma, ['usage_route_minute', 'usage_route_hour', 'usage_route_day']));

  it("makes each route's hour the sum of its minutes and its day the sum of its minutes in the tenant's time zone", async () => {
    const unknownTenant = randomUUID();
    // 17:58 … 18:45 UTC: two UTC hours; in Kolkata 23:28 … 00:15, two local days split at 18:30 UTC.
    const written = [-2, -1, 0, 10, 29, 30, 31, 45];
    for (const [i, offset] of written.entries()) {
      await write(writer, minuteAt(offset), new Map([
        [utcTenant, [items(i + 1), orders(1)]],
        [kolkataTenant, [items(10 * (i + 1)), itemsDenied(1)]],
        [unknownTenant, [orders(2)]],
        [NO_TENANT, [refused(1)]],
      ]));
    }
    const sum = (offsets: number[], f: (i: number) => number) => BigInt(written.reduce((t, offset, i) => (offsets.includes(offset) ? t + f(i) : t), 0));
    const view = <R extends { tenant_id: string; route: string; result: string }>(rows: R[], tenant: string, route = 'GET /v1/items', result = 'allowed') =>
      rows.filter((r) => r.tenant_id === tenant && r.route === route && r.result === result);

    const hours = await table('usage_route_hour');
    expect(view(hours, utcTenant).map((r) => [r.bucket.toISOString(), r.decisions])).toEqual([
      ['2026-03-10T17:00:00.000Z', sum([-2, -1], (i) => i + 1)],
      ['2026-03-10T18:00:00.000Z', sum([0, 10, 29, 30, 31, 45], (i) => i + 1)],
    ]);

    const dayRows = await days();
    // UTC: one day. Kolkata: 10 March until 18:29 UTC, 11 March from 18:30 UTC.
    expect(view(dayRows, utcTenant).map((r) => [r.day, r.decisions])).toEqual([['2026-03-10', sum(written, (i) => i + 1)]]);
    expect(view(dayRows, utcTenant, 'POST /v1/orders').map((r) => [r.day, r.decisions])).toEqual([['2026-03-10', 8n]]);
    expect(view(dayRows, kolkataTenant).map((r) => [r.day, r.decisions])).toEqual([
      ['2026-03-10', sum([-2, -1, 0, 10, 29], (i) => 10 * (i + 1))],
      ['2026-03-11', sum([30, 31, 45], (i) => 10 * (i + 1))],
    ]);
    expect(view(dayRows, kolkataTenant, 'GET /v1/items', 'denied').map((r) => [r.day, r.reason, r.decisions])).toEqual([['2026-03-10', 'minute', 5n], ['2026-03-11', 'minute', 3n]]);
    // An id of no tenant, and no tenant at all (the nil UUID), count UTC days.
    expect(view(dayRows, unknownTenant, 'POST /v1/orders').map((r) => [r.day, r.decisions])).toEqual([['2026-03-10', 16n]]);
    expect(view(dayRows, KEY_USAGE_NO_TENANT, 'GET /v1/items', 'refused').map((r) => [r.day, r.decisions])).toEqual([['2026-03-10', 8n]]);

    // Minutes, hours and days hold the same decisions.
    const total = (rows: { decisions: bigint }[]) => rows.reduce((t, r) => t + r.decisions, 0n);
    const minutes = await table('usage_route_minute');
    expect(total(hours)).toBe(total(minutes));
    expect(total(dayRows)).toBe(total(minutes));
  });

  it('leaves the same rows when a minute is written twice, and keeps the other minutes\' part of a day when a route goes', async () => {
    const minute = new Map([[kolkataTenant, [items(4), itemsDenied(2)]], [NO_TENANT, [refused(3)]]]);
    await write(writer, minuteAt(0), minute);
    await write(writer, minuteAt(10), new Map([[kolkataTenant, [itemsDenied(5)]]]));
    const first = await all();
    await write(writer, minuteAt(0), minute);
    await write(writer, minuteAt(10), new Map([[kolkataTenant, [itemsDenied(5)]]]));
    expect(await all()).toEqual(first);
    expect(first.days.map((r) => [r.day, r.tenant_id, r.result, r.decisions])).toEqual([
      ['2026-03-10', KEY_USAGE_NO_TENANT, 'refused', 3n],
      ['2026-03-10', kolkataTenant, 'allowed', 4n],
      ['2026-03-10', kolkataTenant, 'denied', 7n],
    ]);

    // The first minute written again without its denial: the day keeps the other minute's denials, the other tenant's
    // rows stay.
    await write(writer, minuteAt(0), new Map([[kolkataTenant, [items(4)]]]));
    expect((await days()).map((r) => [r.tenant_id, r.result, r.decisions])).toEqual([
      [KEY_USAGE_NO_TENANT, 'refused', 3n],
      [kolkataTenant, 'allowed', 4n],
      [kolkataTenant, 'denied', 5n],
    ]);
    // A tenant listed with nothing counted has no route rows left in the minute's hour and day but the other minute's.
    await write(writer, minuteAt(0), new Map([[kolkataTenant, []]]));
    expect((await days()).map((r) => [r.tenant_id, r.result, r.decisions])).toEqual([[KEY_USAGE_NO_TENANT, 'refused', 3n], [kolkataTenant, 'denied', 5n]]);
    expect((await table('usage_route_hour')).map((r) => [r.tenant_id, r.result, r.decisions])).toEqual([[KEY_USAGE_NO_TENANT, 'refused', 3n], [kolkataTenant, 'denied', 5n]]);
  });

  it('moves a day whose older minutes retention already deleted by the difference, keeping what they added', async () => {
    await write(writer, minuteAt(-60), new Map([[utcTenant, [items(5)]]]));
    await write(writer, minuteAt(10), new Map([[utcTenant, [items(1)]]]));
    await prisma.$executeRaw`DELETE FROM usage_route_minute WHERE bucket = ${new Date(minuteAt(-60) * 1000)}`;

    // A day later, with minutes kept one day: the day started before what is still kept.
    const late = new PostgresUsageWriter(prisma, { minuteRetentionDays: 1, now: () => (EVENING + 86_400) * 1000 });
    const rewritten = new Map([[utcTenant, [items(3), itemsDenied(2)]]]);
    await write(late, minuteAt(10), rewritten);
    await write(late, minuteAt(10), rewritten);
    const view = (rows: { result: string; decisions: bigint }[]) => rows.map((r) => [r.result, r.decisions]);
    expect(view(await days())).toEqual([['allowed', 8n], ['denied', 2n]]);
    expect(view(await table('usage_route_hour'))).toEqual([['allowed', 5n], ['allowed', 3n], ['denied', 2n]]);
  });

  it('deletes route days older than the day retention, in batches', async () => {
    const now = new Date(Date.UTC(2026, 5, 1, 12));
    // 400 days before 2026-06-01 is 2025-04-27: that day is kept, the ones before go.
    await prisma.$executeRaw`
      INSERT INTO usage_route_day (day, tenant_id, route, result, decisions)
      SELECT '2025-04-26'::date - g, ${utcTenant}::uuid, 'GET /v1/items/' || g, 'allowed', 1 FROM generate_series(0, 10000) g`;
    await prisma.$executeRaw`INSERT INTO usage_route_day (day, tenant_id, route, result, decisions) VALUES ('2025-04-27', ${utcTenant}::uuid, 'GET /v1/items', 'allowed', 1)`;
    expect(await writer.deleteExpired(now, { minuteDays: 7, hourDays: 90, dayDays: 400 })).toMatchObject({ routeDays: 10_001 });
    expect((await days()).map((r) => r.day)).toEqual(['2025-04-27']);
    expect(await writer.deleteExpired(now, { minuteDays: 7, hourDays: 90, dayDays: 400 })).toMatchObject({ routeDays: 0 });
  });
});
