import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/env';
import { createServiceKey, createTenant, publishRules } from '../support/fixtures';
import { ruleVersionInForce, startApiProcesses } from '../support/stack';

// 1000 concurrent checks of cost 1 from 4 API processes against a limit of 100 in
// one window: exactly 100 allowed, 900 denied, no errors.
describe('exact admission across 4 API processes', () => {
  let prisma: PrismaClient;
  let apis: Awaited<ReturnType<typeof startApiProcesses>>;
  let key: string;
  let tenant: string;
  let version: number;

  beforeAll(async () => {
    prisma = createPrismaClient(TEST_DATABASE_URL, { poolSize: 2 });
    ({ tenant: { slug: tenant } } = await createTenant(prisma, [{ name: 'hour', windowS: 3600, limit: 100 }]));
    key = await createServiceKey(prisma);
    ({ version } = await publishRules(prisma, TEST_REDIS_URL));
    // Exactness, not the failure modes, is under test here: on a loaded 2-CPU test machine a burst of 1000 checks
    // can keep Redis busier than the production deadline (50 ms), and an open policy would then pass the checks
    // that missed it (test/integration/redis-failover.int-spec.ts covers that). A long deadline keeps every decision on Redis.
    apis = await startApiProcesses(4, { DECISION_DEADLINE_MS: '10000' });
    for (const url of apis.urls) {
      await ruleVersionInForce(url, version);
    }
  });
  afterAll(async () => {
    await apis?.stop();
    await prisma.$disconnect();
  });

  it('admits exactly 100 of 1000 concurrent checks and answers every one', async () => {
    const results = await Promise.all(
      Array.from({ length: 1000 }, async (_, i) => {
        const res = await fetch(`${apis.urls[i % 4]}/v1/check`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ tenant, endpoint: 'POST /v1/messages', subject: 'shared-subject' }),
        });
        return { status: res.status, allowed: ((await res.json()) as { allowed?: boolean }).allowed };
      }),
    );
    expect(results.filter((r) => r.status !== 200)).toEqual([]);
    expect(results.filter((r) => r.allowed === true)).toHaveLength(100);
    expect(results.filter((r) => r.allowed === false)).toHaveLength(900);
  });
});
