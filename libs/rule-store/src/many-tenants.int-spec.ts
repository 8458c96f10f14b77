import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../../../test/support/env';
import { createTenant } from '../../../test/support/fixtures';
import { recreateDatabase } from '../../../test/support/stack';
import { RULE_SET_TRANSACTION, commitRuleSetVersion } from './versions';

// Postgres takes at most 65,535 bind parameters a statement, and Prisma loads an `include` with one per parent row:
// the rule set's sources read children in queries of their own, so that an installation of more tenants compiles.
const databaseUrl = testDatabaseUrl('many_tenants');
const TENANTS = 66_000;

describe('a rule set over more tenants than a statement takes bind parameters', () => {
  let prisma: PrismaClient;

  beforeAll(async () => {
    await recreateDatabase(databaseUrl);
    prisma = createPrismaClient(databaseUrl, { poolSize: 2 });
    const { plan, tenant } = await createTenant(prisma);
    await prisma.$executeRaw`
      insert into tenants (id, slug, name, plan_id, updated_at)
      select gen_random_uuid(), 'many-' || i, 'Many ' || i, ${plan.id}::uuid, now() from generate_series(1, ${TENANTS - 1}) as i`;
    // Children on both sides of the split: an override of one tenant, a policy with a limit.
    await prisma.tenantLimitOverride.create({ data: { tenantId: tenant.id, name: 'minute', windowS: 60, limit: 5 } });
    await prisma.endpointPolicy.create({ data: { planId: plan.id, name: 'items', method: 'GET', pattern: '/v1/items', limits: { create: [{ name: 'minute', windowS: 60, limit: 3 }] } } });
  }, 300_000);
  afterAll(async () => {
    await prisma?.$disconnect();
  });

  it('compiles and commits every tenant, with its overrides and its plan\'s policies', async () => {
    const { ruleSet, published } = await prisma.$transaction((tx) => commitRuleSetVersion(tx, 'test'), RULE_SET_TRANSACTION);
    expect(published).toBe(true);
    const tenants = Object.values(ruleSet.tenants);
    expect(tenants).toHaveLength(TENANTS);
    expect(tenants.filter((t) => t.limits.some((l) => l.name === 'minute' && l.limit === 5))).toHaveLength(1);
    expect(JSON.stringify(ruleSet.policies)).toContain('/v1/items');
    // The same rows again: no new version (the snapshot reads the same children the same way).
    const again = await prisma.$transaction((tx) => commitRuleSetVersion(tx, 'test'), RULE_SET_TRANSACTION);
    expect(again.published).toBe(false);
  }, 300_000);
});
