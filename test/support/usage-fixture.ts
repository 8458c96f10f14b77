import { randomUUID } from 'node:crypto';
import { Prisma, type PrismaClient } from '@tollgate/db';
import type { UsageResult } from '@tollgate/usage';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { useOperatorApi } from './context';
import { TEST_REDIS_URL } from './env';
import { createTenant, createTenantKey, publishRules } from './fixtures';

export const MINUTE = 60_000;
export const HOUR = 3600_000;
export const DAY = 86_400_000;

/** The tenants and policies of a usage API test file, and the rows written for them. Filled in by `beforeAll`. */
export interface UsageFixture {
  ctx: ReturnType<typeof useOperatorApi>;
  redis: Redis;
  /** Tenants A and B share a plan and its policy; C (its own plan, Asia/Kolkata) has a hostile name. */
  a: { id: string; slug: string; name: string };
  b: { id: string; slug: string; name: string };
  c: { id: string; slug: string; name: string };
  planPolicy: string;
  policyOfA: string;
  policyOfC: string;
  /** Sessions of A's and B's users, and a key of A. */
  tokens: Record<string, string>;
  /** The start of an hour two to three days ago: the rows of the minute and hour tests are after it. */
  base: number;
  hostileName: string;
  iso(ms: number): string;
  get(path: string, token?: string): ReturnType<ReturnType<typeof useOperatorApi>['api']['request']>;
  usage(query: Record<string, string | number>, path?: string, token?: string): ReturnType<ReturnType<typeof useOperatorApi>['api']['request']>;
  insert(table: 'usageMinute' | 'usageHour', at: number, tenantId: string | null, policyId: string | null, result: UsageResult, reason: string, decisions: number, cost?: number): Promise<void>;
  insertDay(day: string, tenantId: string, policyId: string | null, result: UsageResult, decisions: number, cost?: number): Promise<void>;
}

/**
 * For a describe block of usage API tests. The usage API reads what the worker rolled up: rows are written here
 * straight into the rollup tables (and denial samples into the tenant's stream), as the worker and the API nodes
 * would. Rows of other test files may share the tables: every assertion reads a fresh tenant's rows, a fresh
 * policy's, or a range of hours no other file writes (a random hour two to three days ago).
 */
export function useUsageFixture(): UsageFixture {
  const ctx = useOperatorApi();
  const f = { ctx, tokens: {}, hostileName: `=cmd|' /C calc'!A0, "Acme" Ltd ${randomUUID().slice(0, 4)}` } as UsageFixture;
  f.iso = (ms) => new Date(ms).toISOString();
  f.get = (path, token = ctx.session) => ctx.api.request('GET', path, { token });
  f.usage = (query, path = '/v1/admin/usage', token = ctx.session) =>
    f.get(`${path}?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`, token);
  f.insert = async (table, at, tenantId, policyId, result, reason, decisions, cost = 0) => {
    const data = { bucket: new Date(at), tenantId, policyId, result, reason, decisions: BigInt(decisions), cost: BigInt(cost) };
    // The totals over every tenant move with the row, as the worker's write keeps them.
    const total = { decisions: { increment: BigInt(decisions) }, cost: { increment: BigInt(cost) } };
    const key = { bucket_result: { bucket: data.bucket, result } };
    const created = { bucket: data.bucket, result, decisions: BigInt(decisions), cost: BigInt(cost) };
    if (table === 'usageMinute') {
      await ctx.prisma.usageMinute.create({ data });
      await ctx.prisma.usageTotalMinute.upsert({ where: key, create: created, update: total });
    } else {
      await ctx.prisma.usageHour.create({ data });
      await ctx.prisma.usageTotalHour.upsert({ where: key, create: created, update: total });
    }
    await addSumsByOwner(ctx.prisma, table === 'usageMinute' ? 'minute' : 'hour', data.bucket, tenantId, policyId, result, decisions, cost);
  };
  f.insertDay = async (day, tenantId, policyId, result, decisions, cost = 0) => {
    const date = new Date(`${day}T00:00:00Z`);
    await ctx.prisma.usageDay.create({ data: { day: date, tenantId, policyId, result, reason: '', decisions: BigInt(decisions), cost: BigInt(cost) } });
    await ctx.prisma.usageTotalDay.upsert({
      where: { day_result: { day: date, result } },
      create: { day: date, result, decisions: BigInt(decisions), cost: BigInt(cost) },
      update: { decisions: { increment: BigInt(decisions) }, cost: { increment: BigInt(cost) } },
    });
    await addSumsByOwner(ctx.prisma, 'day', date, tenantId, policyId, result, decisions, cost);
  };

  beforeAll(async () => {
    f.redis = new Redis(TEST_REDIS_URL);
    const first = await createTenant(ctx.prisma);
    const a = (f.a = first.tenant);
    f.b = await ctx.prisma.tenant.create({ data: { slug: `usage-b-${randomUUID().slice(0, 8)}`, name: 'Tenant B', planId: first.plan.id } });
    const third = await createTenant(ctx.prisma);
    f.c = await ctx.prisma.tenant.update({ where: { id: third.tenant.id }, data: { name: f.hostileName, timeZone: 'Asia/Kolkata' } });
    const suffix = randomUUID().slice(0, 8);
    f.planPolicy = (await ctx.prisma.endpointPolicy.create({ data: { planId: first.plan.id, name: `items${suffix}`, method: 'GET', pattern: `/items-${suffix}/*` } })).id;
    f.policyOfA = (await ctx.prisma.endpointPolicy.create({ data: { tenantId: a.id, name: `own${suffix}`, method: 'POST', pattern: `/own-${suffix}` } })).id;
    f.policyOfC = (await ctx.prisma.endpointPolicy.create({ data: { tenantId: f.c.id, name: `export${suffix}`, method: 'GET', pattern: `/export-${suffix}` } })).id;
    f.tokens.userA = await ctx.signIn('tenant', a.id);
    f.tokens.userB = await ctx.signIn('tenant', f.b.id);
    f.tokens.keyA = (await createTenantKey(ctx.prisma, a.id)).key;
    const { version } = await publishRules(ctx.prisma, TEST_REDIS_URL);
    await ctx.api.waitForRuleVersion(version);

    const base = (f.base = Math.floor((Date.now() - 2 * DAY) / HOUR) * HOUR - Math.floor(Math.random() * 24) * HOUR);
    const { insert, planPolicy, policyOfA, b } = f;
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
  afterAll(() => {
    f.redis?.disconnect();
  });
  return f;
}

/** The sums per tenant and per endpoint policy (`usage_by_*`) move with a row too, as the worker's write keeps them. */
async function addSumsByOwner(
  prisma: PrismaClient,
  granularity: 'minute' | 'hour' | 'day',
  at: Date,
  tenantId: string | null,
  policyId: string | null,
  result: UsageResult,
  decisions: number,
  cost: number,
): Promise<void> {
  const bucket = Prisma.raw(granularity === 'day' ? 'day' : 'bucket');
  const sums = Prisma.sql`${BigInt(decisions)}::bigint, ${BigInt(result === 'denied' ? decisions : 0)}::bigint, ${BigInt(cost)}::bigint`;
  const add = Prisma.raw('DO UPDATE SET decisions = t.decisions + EXCLUDED.decisions, denied = t.denied + EXCLUDED.denied, cost = t.cost + EXCLUDED.cost');
  for (const [owner, id] of [['tenant', tenantId], ['policy', policyId]] as const) {
    if (id === null) continue;
    const table = Prisma.raw(`usage_by_${owner}_${granularity}`);
    await prisma.$executeRaw`
      INSERT INTO ${table} AS t (${bucket}, ${Prisma.raw(`${owner}_id`)}, decisions, denied, cost) VALUES (${at}, ${id}::uuid, ${sums})
      ON CONFLICT (${bucket}, ${Prisma.raw(`${owner}_id`)}) ${add}`;
  }
}
