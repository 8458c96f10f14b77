import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../../../test/support/env';
import { recreateDatabase } from '../../../test/support/stack';
import { createPrismaClient, type PrismaClient } from './index';

// What Node warned of while this file ran: `pg` warns (once a process) when a query is sent on a connection that is
// still busy with another, which its next major version refuses.
const warnings: Error[] = [];
process.on('warning', (warning) => warnings.push(warning));

describe('the Prisma client', () => {
  const databaseUrl = testDatabaseUrl('db_client');
  let prisma: PrismaClient;

  beforeAll(async () => {
    await recreateDatabase(databaseUrl);
    prisma = createPrismaClient(databaseUrl, { poolSize: 2 });
    const plan = await prisma.plan.create({ data: { slug: 'p', name: 'P', limits: { create: [{ name: 'minute', windowS: 60, limit: 10 }] } } });
    await prisma.tenant.create({ data: { slug: 't', name: 'T', planId: plan.id } });
  });
  afterAll(async () => {
    await prisma?.$disconnect();
  });

  it('reads the relations a query includes, in a transaction, one query after the other: pg has nothing to warn of', async () => {
    // Prisma reads each included relation with a query of its own, side by side, on the transaction's one connection.
    const plans = await prisma.$transaction((tx) => tx.plan.findMany({ include: { limits: true, tenants: true, policies: true } }));
    expect(plans.map((p) => [p.slug, p.limits.map((l) => l.name), p.tenants.map((t) => t.slug), p.policies])).toEqual([['p', ['minute'], ['t'], []]]);
    await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
    expect(warnings.map((w) => `${w.name}: ${w.message}`)).toEqual([]);
  });
});
