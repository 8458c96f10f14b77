import { randomBytes, randomUUID } from 'node:crypto';
import { type PrismaClient, secretHash } from '@tollgate/db';
import type { LimitSpec } from '@tollgate/domain';
import { generateKey } from '../../apps/api/src/modules/keys/key-format';

/** A fresh plan + tenant with the given limits and a random slug, so tests never share counters or rows. */
export async function createTenant(
  prisma: PrismaClient,
  limits: Pick<LimitSpec, 'name' | 'windowS' | 'limit' | 'calendar'>[] = [
    { name: 'minute', windowS: 60, limit: 10 },
    { name: 'daily', windowS: 86_400, limit: 1000 },
  ],
) {
  const suffix = randomUUID().slice(0, 8);
  const plan = await prisma.plan.create({
    data: { slug: `plan-${suffix}`, name: `Plan ${suffix}`, limits: { create: limits } },
    include: { limits: true },
  });
  const tenant = await prisma.tenant.create({ data: { slug: `tenant-${suffix}`, name: `Tenant ${suffix}`, planId: plan.id } });
  return { plan, tenant };
}

/**
 * A tenant whose plan has one per-minute limit of `limit` and an endpoint policy of each failure mode but the default
 * (`GET /closed`: `shut`, closed; `GET /local`: `near`, local; anything else: no policy), each with the same limit.
 */
export async function createFailureModeTenant(prisma: PrismaClient, limit: number) {
  const fixture = await createTenant(prisma, [{ name: 'minute', windowS: 60, limit }]);
  for (const [name, pattern, failureMode] of [
    ['shut', '/closed', 'closed'],
    ['near', '/local', 'local'],
  ] as const) {
    await prisma.endpointPolicy.create({
      data: { planId: fixture.plan.id, name, method: 'GET', pattern, failureMode, limits: { create: [{ name: 'minute', windowS: 60, limit }] } },
    });
  }
  const policyIds = new Map((await prisma.endpointPolicy.findMany({ where: { planId: fixture.plan.id } })).map((p) => [p.name, p.id]));
  return { ...fixture, policyIds };
}

/**
 * A service key for every tenant, or only for the tenants of `tenantIds` (the raw secret is returned once, as in
 * production; only its hash is stored).
 */
export async function createServiceKey(prisma: PrismaClient, tenantIds?: string[]) {
  const key = `tg_test_${randomBytes(24).toString('base64url')}`;
  await prisma.apiKey.create({
    data: {
      kind: 'service',
      name: 'test service key',
      prefix: key.slice(0, 12),
      hash: secretHash(key),
      allTenants: tenantIds === undefined,
      scopedTenants: { create: (tenantIds ?? []).map((tenantId) => ({ tenantId })) },
    },
  });
  return key;
}

/** A tenant key of `tenantId` (the secret is returned once; only its hash is stored), as the admin API makes one. */
/** Two tenants (`createTenant`): one on UTC, one on Asia/Kolkata (UTC+5:30: its days start at 18:30 UTC). */
export async function utcAndKolkataTenants(prisma: PrismaClient): Promise<[utc: string, kolkata: string]> {
  const utc = (await createTenant(prisma)).tenant.id;
  const kolkata = (await createTenant(prisma)).tenant.id;
  await prisma.tenant.update({ where: { id: kolkata }, data: { timeZone: 'Asia/Kolkata' } });
  return [utc, kolkata];
}

/** The tables a usage minute's write fills (PostgresUsageWriter.writeMinute), but for the per-route ones. */
const USAGE_TABLES = ['usage_minute', 'usage_hour', 'usage_day', 'usage_total_minute', 'usage_total_hour', 'usage_total_day',
  'usage_by_tenant_minute', 'usage_by_tenant_hour', 'usage_by_tenant_day', 'usage_by_policy_minute', 'usage_by_policy_hour', 'usage_by_policy_day'];

/** Empties the usage tables (and `more` of them: names written in the test, never input) of a test's own database. */
export async function emptyUsageTables(prisma: PrismaClient, more: string[] = []): Promise<void> {
  await prisma.$executeRawUnsafe(`TRUNCATE ${[...USAGE_TABLES, ...more].join(', ')}`);
}

export async function createTenantKey(prisma: PrismaClient, tenantId: string, options: { revoked?: boolean; expiresAt?: Date } = {}) {
  const { key, prefix, hash } = generateKey('tenant', 'test');
  const row = await prisma.apiKey.create({
    data: { kind: 'tenant', name: 'test tenant key', prefix, hash, tenantId, revokedAt: options.revoked ? new Date() : null, expiresAt: options.expiresAt ?? null },
  });
  return { key, id: row.id };
}

/** An operator (or tenant user) with a known password. */
export async function createUser(prisma: PrismaClient, role: 'operator' | 'tenant' = 'operator', tenantId?: string) {
  const { hash } = await import('@node-rs/argon2');
  const email = `${role}-${randomUUID().slice(0, 8)}@test.local`;
  const password = randomBytes(12).toString('base64url');
  await prisma.user.create({ data: { email, name: email, role, passwordHash: await hash(password), tenantId: tenantId ?? null } });
  return { email, password };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until it returns true or `timeoutMs` passes; returns the elapsed milliseconds, throws on timeout. */
export async function waitFor(fn: () => Promise<boolean> | boolean, timeoutMs = 5_000, everyMs = 20): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await fn()) return Date.now() - start;
    if (Date.now() - start > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

/** Compiles and publishes a new rule set version (what an admin change does), e.g. after creating fixtures. */
export async function publishRules(prisma: PrismaClient, redisUrl: string) {
  const { commitRuleSetVersion, readInstallationId, RuleSetReconciler, RuleSetStore } = await import('@tollgate/rule-store');
  const { Redis } = await import('ioredis');
  const { ruleSet } = await prisma.$transaction((tx) => commitRuleSetVersion(tx, 'test'));
  const redis = new Redis(redisUrl);
  try {
    await new RuleSetReconciler(prisma, new RuleSetStore(redis)).reconcile(await readInstallationId(prisma), ruleSet);
  } finally {
    redis.disconnect();
  }
  return ruleSet;
}

/**
 * Waits, if needed, until at least `marginMs` remain in the current minute of the clock, so that a test that
 * fills a per-minute fixed window (epoch-aligned) does not straddle a window boundary.
 */
export async function awayFromMinuteBoundary(marginMs = 10_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < marginMs) await sleep(left + 50);
}
