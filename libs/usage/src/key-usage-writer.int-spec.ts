import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '@tollgate/db';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServiceKey, createTenant, createTenantKey } from '../../../test/support/fixtures';
import { useOwnDatabase } from '../../../test/support/own-database';
import type { KeyCount } from './fields';
import { KEY_USAGE_NO_TENANT } from './key-usage-writer';
import { NO_TENANT } from './keys';
import { PostgresUsageWriter } from './postgres-writer';

const HOUR = Date.UTC(2026, 2, 10, 18, 0) / 1000;
const minuteAt = (offsetMinutes: number) => HOUR + offsetMinutes * 60;
const calls = (decisions: number, denied = 0, other = 0): KeyCount => ({ decisions, denied, other });

// The calls made with each API key are written with the decisions of their minute (PostgresUsageWriter.writeMinute):
// absolute values per key, minute and tenant, the hour as the sum of its minutes, and the key's last use.
describe('per-key usage in PostgresUsageWriter', () => {
  let prisma: PrismaClient;
  let writer: PostgresUsageWriter;
  let acme: string;
  let globex: string;
  let service: string;
  let acmeKey: string;

  const minutes = () =>
    prisma.$queryRaw<{ bucket: Date; key_id: string; tenant_id: string; decisions: bigint; denied: bigint; other: bigint }[]>`
      SELECT bucket, key_id::text, tenant_id::text, decisions, denied, other FROM key_usage_minute ORDER BY bucket, key_id, tenant_id`;
  const hours = () =>
    prisma.$queryRaw<{ bucket: Date; key_id: string; tenant_id: string; decisions: bigint; denied: bigint; other: bigint }[]>`
      SELECT bucket, key_id::text, tenant_id::text, decisions, denied, other FROM key_usage_hour ORDER BY bucket, key_id, tenant_id`;
  const lastUsed = async (id: string) => (await prisma.apiKey.findUniqueOrThrow({ where: { id } })).lastUsedAt;
  const row = (bucket: number, keyId: string, tenantId: string, c: KeyCount) => ({
    bucket: new Date(bucket * 1000),
    key_id: keyId,
    tenant_id: tenantId,
    decisions: BigInt(c.decisions),
    denied: BigInt(c.denied),
    other: BigInt(c.other),
  });
  const sorted = <T extends { key_id: string; tenant_id: string }>(rows: T[]) => [...rows].sort((a, b) => `${a.key_id}${a.tenant_id}`.localeCompare(`${b.key_id}${b.tenant_id}`));

  // A database of this file's own: it empties the usage tables between tests.
  useOwnDatabase('key_usage_writer', (client) => (prisma = client));
  beforeAll(async () => {
    writer = new PostgresUsageWriter(prisma, { now: () => HOUR * 1000 + 3_600_000 });
    acme = (await createTenant(prisma)).tenant.id;
    globex = (await createTenant(prisma)).tenant.id;
    const serviceKey = await createServiceKey(prisma);
    service = (await prisma.apiKey.findFirstOrThrow({ where: { prefix: serviceKey.slice(0, 12) } })).id;
    acmeKey = (await createTenantKey(prisma, acme)).id;
  });
  beforeEach(async () => {
    await prisma.$executeRaw`TRUNCATE usage_minute, usage_hour, usage_day, key_usage_minute, key_usage_hour`;
    await prisma.apiKey.updateMany({ data: { lastUsedAt: null } });
  });

  it('stores each key’s calls per tenant, sums the hour, sets the last use, and writes the same rows twice', async () => {
    const keys = new Map([
      [acme, new Map([[service, calls(5, 1, 2)], [acmeKey, calls(3, 1)]])],
      [globex, new Map([[service, calls(4)]])],
      // A service key whose check named a key of no one: refused, without a tenant.
      [NO_TENANT, new Map([[service, calls(1, 1)]])],
    ]);
    const counts = new Map([[acme, []], [globex, []], [NO_TENANT, []]]);
    await writer.writeMinute(minuteAt(0), counts, keys);
    const expected = sorted([
      row(minuteAt(0), service, acme, calls(5, 1, 2)),
      row(minuteAt(0), acmeKey, acme, calls(3, 1)),
      row(minuteAt(0), service, globex, calls(4)),
      row(minuteAt(0), service, KEY_USAGE_NO_TENANT, calls(1, 1)),
    ]);
    expect(sorted(await minutes())).toEqual(expected);
    expect(sorted(await hours())).toEqual(expected.map((r) => ({ ...r, bucket: new Date(HOUR * 1000) })));
    expect(await lastUsed(service)).toEqual(new Date(minuteAt(0) * 1000));
    expect(await lastUsed(acmeKey)).toEqual(new Date(minuteAt(0) * 1000));

    // Again, as a rollup run twice or restarted does: the same rows.
    await writer.writeMinute(minuteAt(0), counts, keys);
    expect(sorted(await minutes())).toEqual(expected);
    expect(sorted(await hours())).toEqual(expected.map((r) => ({ ...r, bucket: new Date(HOUR * 1000) })));

    // A later minute of the hour adds to it; the last use moves forward, and never back for an older minute.
    await writer.writeMinute(minuteAt(30), new Map([[acme, []]]), new Map([[acme, new Map([[acmeKey, calls(2, 0, 1)]])]]));
    expect(await hours()).toContainEqual(row(HOUR, acmeKey, acme, calls(5, 1, 1)));
    expect(await lastUsed(acmeKey)).toEqual(new Date(minuteAt(30) * 1000));
    await writer.writeMinute(minuteAt(0), counts, keys);
    expect(await lastUsed(acmeKey)).toEqual(new Date(minuteAt(30) * 1000));
    expect(await hours()).toContainEqual(row(HOUR, acmeKey, acme, calls(5, 1, 1)));
  });

  it('replaces a tenant’s keys of the minute: a key no longer counted there leaves the minute and the hour', async () => {
    await writer.writeMinute(minuteAt(0), new Map([[acme, []]]), new Map([[acme, new Map([[service, calls(2)], [acmeKey, calls(1)]])]]));
    await writer.writeMinute(minuteAt(0), new Map([[acme, []]]), new Map([[acme, new Map([[service, calls(2)]])]]));
    expect(await minutes()).toEqual([row(minuteAt(0), service, acme, calls(2))]);
    expect(await hours()).toEqual([row(HOUR, service, acme, calls(2))]);
    // A tenant not in the write keeps its rows.
    await writer.writeMinute(minuteAt(0), new Map([[globex, []]]), new Map([[globex, new Map([[service, calls(7)]])]]));
    expect(sorted(await minutes())).toEqual(sorted([row(minuteAt(0), service, acme, calls(2)), row(minuteAt(0), service, globex, calls(7))]));
  });

  it('leaves out keys deleted since and ids that are not UUIDs, and writes the rest', async () => {
    const gone = (await createTenantKey(prisma, acme)).id;
    await prisma.apiKey.delete({ where: { id: gone } });
    await writer.writeMinute(minuteAt(0), new Map([[acme, []], ['not-a-tenant', []]]), new Map([
      [acme, new Map([[gone, calls(3)], ['not-a-uuid', calls(1)], [randomUUID(), calls(1)], [acmeKey, calls(2)]])],
      ['not-a-tenant', new Map([[service, calls(9)]])],
    ]));
    expect(await minutes()).toEqual([row(minuteAt(0), acmeKey, acme, calls(2))]);
    expect(await hours()).toEqual([row(HOUR, acmeKey, acme, calls(2))]);
  });

  it('moves an hour that may have lost minutes to retention by the minute’s difference', async () => {
    // The writer's clock says minutes are kept one day: the hour 3 days back may have lost some.
    const late = new PostgresUsageWriter(prisma, { now: () => HOUR * 1000 + 3 * 86_400_000, minuteRetentionDays: 1 });
    await prisma.$executeRaw`INSERT INTO key_usage_hour (bucket, key_id, tenant_id, decisions, denied, other) VALUES (${new Date(HOUR * 1000)}, ${acmeKey}::uuid, ${acme}::uuid, 10, 2, 0)`;
    await late.writeMinute(minuteAt(5), new Map([[acme, []]]), new Map([[acme, new Map([[acmeKey, calls(3, 1)]])]]));
    await late.writeMinute(minuteAt(5), new Map([[acme, []]]), new Map([[acme, new Map([[acmeKey, calls(3, 1)]])]]));
    expect(await hours()).toEqual([row(HOUR, acmeKey, acme, calls(13, 3))]);
  });

  it('deletes per-key rows past their retention, in batches', async () => {
    const now = new Date(Date.UTC(2026, 5, 1, 12));
    const daysAgo = (n: number) => new Date(now.getTime() - n * 86_400_000);
    await prisma.$executeRaw`
      INSERT INTO key_usage_minute (bucket, key_id, tenant_id, decisions, denied, other)
      SELECT ${daysAgo(8)}::timestamptz - make_interval(mins => g), ${acmeKey}::uuid, ${acme}::uuid, 1, 0, 0 FROM generate_series(1, 10500) g`;
    await prisma.$executeRaw`
      INSERT INTO key_usage_minute (bucket, key_id, tenant_id, decisions, denied, other) VALUES (${daysAgo(6)}, ${acmeKey}::uuid, ${acme}::uuid, 1, 0, 0)`;
    await prisma.$executeRaw`
      INSERT INTO key_usage_hour (bucket, key_id, tenant_id, decisions, denied, other) VALUES
        (${daysAgo(91)}, ${acmeKey}::uuid, ${acme}::uuid, 1, 0, 0), (${daysAgo(89)}, ${acmeKey}::uuid, ${acme}::uuid, 1, 0, 0)`;
    expect(await writer.deleteExpired(now, { minuteDays: 7, hourDays: 90, dayDays: 400 })).toEqual({ minutes: 0, hours: 0, days: 0, keyMinutes: 10_500, keyHours: 1, routeMinutes: 0, routeHours: 0, routeDays: 0, totals: 0 });
    expect((await minutes()).map((r) => r.bucket)).toEqual([daysAgo(6)]);
    expect((await hours()).map((r) => r.bucket)).toEqual([daysAgo(89)]);
  });
});
