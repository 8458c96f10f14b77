import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { LeasedLimiter, TollgateClient } from '@tollgate/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type TestApi } from '../support/api';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/env';
import { createServiceKey, createTenant, publishRules } from '../support/fixtures';

// The local limiter over HTTP leases (`/v1/check/lease`, `/v1/check/refund`), against the real API.
describe('LeasedLimiter with a TollgateClient, against the real API', () => {
  let prisma: PrismaClient;
  let api: TestApi;
  let client: TollgateClient;
  let leases = 0;

  /** A tenant of its own with 100 an hour, in force on the API. */
  const freshTenant = async () => {
    const { tenant } = await createTenant(prisma, [{ name: 'hourly', windowS: 3600, limit: 100 }]);
    const ruleSet = await publishRules(prisma, TEST_REDIS_URL);
    await api.waitForRuleVersion(ruleSet.version);
    return tenant.slug;
  };
  const target = (tenant: string) => ({ tenant, endpoint: 'POST /v1/messages' });
  /** What would remain after one more unit (a peek counts its own cost when it fits). */
  const remaining = async (tenant: string) => (await client.peek({ ...target(tenant), cost: 1 })).limits[0]?.remaining;

  beforeAll(async () => {
    prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    api = await startApi();
    const real = new TollgateClient({ baseUrl: api.url, serviceKey: await createServiceKey(prisma) });
    // Counts the leases the limiters ask for; everything goes to the real API.
    client = Object.assign(Object.create(real) as TollgateClient, {
      lease: (...args: Parameters<TollgateClient['lease']>) => {
        leases += 1;
        return real.lease(...args);
      },
    });
  });
  afterAll(async () => {
    await api.close();
    await prisma.$disconnect();
  });

  it('three nodes, 600 concurrent decisions against a limit of 100: exactly 100 admitted, in a few leases', async () => {
    const tenant = await freshTenant();
    const nodes = [0, 1, 2].map(() => new LeasedLimiter({ client, leaseSize: 15, sweepEveryMs: 0 }));
    const leasesBefore = leases;
    const decisions = await Promise.all(Array.from({ length: 600 }, (_, i) => nodes[i % 3]!.take(target(tenant))));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(100);
    const denied = decisions.find((d) => !d.allowed);
    expect(denied?.retryAfterMs).toBeGreaterThan(0);
    expect(leases - leasesBefore).toBeLessThan(30);
    await Promise.all(nodes.map((n) => n.close()));
    expect(await remaining(tenant)).toBe(0);
  });

  it('refunds unspent units on close', async () => {
    const tenant = await freshTenant();
    const node = new LeasedLimiter({ client, leaseSize: 20, sweepEveryMs: 0 });
    expect(await node.take(target(tenant), 3)).toMatchObject({ allowed: true });
    expect(await remaining(tenant)).toBe(79);
    await node.close();
    expect(await remaining(tenant)).toBe(96);
    expect(node.stats()).toMatchObject({ granted: 20, spent: 3, refunded: 17 });
  });
});
