import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { commitRuleSetVersion, readInstallationId, RuleSetReconciler, RuleSetStore } from '@tollgate/rule-store';
import { KEY_USAGE_NO_TENANT, minuteOf, NO_TENANT, ROLLED_KEY } from '@tollgate/usage';
import { type Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../support/env';
import { createServiceKey, createTenant, createTenantKey, waitFor } from '../support/fixtures';
import { startCluster } from '../support/redis-cluster';
import { ownStores, recreateDatabase, ruleVersionInForce, startApiProcesses, startWorker } from '../support/stack';

const TABLES = ['usage_minute', 'usage_hour', 'usage_day'] as const;
const ROUTE_TABLES = ['usage_route_minute', 'usage_route_hour', 'usage_route_day'] as const;

/** Where the platform's Redis is for one run: the settings of the API and the worker, and a client of the test's own. */
interface RedisUnderTest {
  databaseUrl: string;
  env: Record<string, string>;
  client: Redis | Cluster;
  stop(): Promise<void>;
}

// Usage adds up (docs/reliability.md#usage-adds-up): checks from 3 API processes over HTTP, concurrently, on several
// tenants and policies, answered allowed, denied, shadow would-deny and refused; once the worker has rolled their
// minutes up, Postgres's minute, hour and day totals per tenant, policy and result are the answers counted here, and
// rolling the same minutes up again leaves the same rows. So are the decisions per route (the check's endpoint, per
// tenant and result), which the limit script and the nodes count as fields of the tenant's usage hash. Once on a single
// Redis, once on a 3-primary Redis Cluster (REDIS_CLUSTER_NODES), where every key of a decision is in its tenant's slot
// and the worker's queue in its own.
exactness('one Redis', async () => {
  const stores = await ownStores('usage_exact', 9);
  const client = new Redis(stores.redisUrl);
  return { databaseUrl: stores.databaseUrl, env: { REDIS_URL: stores.redisUrl }, client, stop: async () => client.disconnect() };
});
exactness('a Redis Cluster of 3 primaries', async () => {
  const databaseUrl = testDatabaseUrl('usage_exact_cluster');
  await recreateDatabase(databaseUrl);
  const cluster = await startCluster();
  return {
    databaseUrl,
    env: { REDIS_CLUSTER_NODES: cluster.nodes.map((n) => `${n.host}:${n.port}`).join(',') },
    client: cluster.client(),
    stop: () => cluster.stop(),
  };
});

function exactness(name: string, connect: () => Promise<RedisUnderTest>) {
  describe(`usage from 3 API processes, rolled up into Postgres (${name})`, () => {
    let prisma: PrismaClient;
    let redis: Redis | Cluster;
    let stores: RedisUnderTest;
    let apis: Awaited<ReturnType<typeof startApiProcesses>>;
    let serviceKey: string;
    const tenants: { id: string; slug: string; key: string }[] = [];
    let suspended: string;
    /** Per tenant id, its plan's policies: name → id. */
    const policies = new Map<string, Map<string, string>>();

    beforeAll(async () => {
      stores = await connect();
      prisma = createPrismaClient(stores.databaseUrl, { poolSize: 2 });
      redis = stores.client;
      for (let i = 0; i < 3; i += 1) {
        const { plan, tenant } = await createTenant(prisma, [{ name: 'hour', windowS: 3600, limit: 40 + 10 * i }]);
        policies.set(tenant.id, new Map());
        for (const [name, pattern, mode, limit] of [
          ['search', '/v1/search', 'enforce', 15],
          ['trial', '/v1/trial', 'shadow', 5],
        ] as const) {
          const p = await prisma.endpointPolicy.create({
            data: { planId: plan.id, name, method: 'GET', pattern, mode, scope: 'tenant', limits: { create: [{ name: 'hour', windowS: 3600, limit }] } },
          });
          policies.get(tenant.id)!.set(name, p.id);
        }
        tenants.push({ id: tenant.id, slug: tenant.slug, key: (await createTenantKey(prisma, tenant.id)).key });
      }
      const other = await createTenant(prisma);
      suspended = other.tenant.slug;
      await prisma.tenant.update({ where: { id: other.tenant.id }, data: { status: 'suspended' } });
      serviceKey = await createServiceKey(prisma);
      const { ruleSet } = await prisma.$transaction((tx) => commitRuleSetVersion(tx, 'test'));
      await new RuleSetReconciler(prisma, new RuleSetStore(redis)).reconcile(await readInstallationId(prisma), ruleSet);
      const { version } = ruleSet;
      // A loaded machine must not turn a slow reply into a degraded answer (deadline) or a reply ioredis gave up on
      // after Redis counted it (command timeout: not undone, ADR 0021): this counts answers, not latency.
      apis = await startApiProcesses(3, {
        DATABASE_URL: stores.databaseUrl,
        ...stores.env,
        DECISION_DEADLINE_MS: '10000',
        REDIS_COMMAND_TIMEOUT_MS: '10000',
        USAGE_FLUSH_MS: '200',
      });
      for (const url of apis.urls) {
        await ruleVersionInForce(url, version);
      }
    });
    afterAll(async () => {
      await apis?.stop();
      await stores?.stop();
      await prisma?.$disconnect();
    });

    /** The answers, counted as usage counts them: per tenant id (or `-`), policy id (or `-`) and result. */
    const expected = new Map<string, number>();
    /** The same per tenant id (or `-`), route (the check's endpoint) and result. */
    const expectedRoutes = new Map<string, number>();
    const tally = (tenantId: string, policyId: string | null, route: string, result: string) => {
      for (const [counts, key] of [[expected, `${tenantId}|${policyId ?? '-'}|${result}`], [expectedRoutes, `${tenantId}|${route}|${result}`]] as const) {
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    };

    interface Answer {
      allowed: boolean;
      wouldDeny?: boolean;
      reason?: string;
      tenant?: string;
      policy?: string;
    }

    it('counts every answer once: minute, hour and day totals equal the answers, and a second rollup changes nothing', async () => {
      const endpoints = ['GET /v1/search', 'GET /v1/trial', 'GET /v1/items'];
      const requests: Record<string, unknown>[] = [];
      for (let i = 0; i < 600; i += 1) {
        const t = tenants[i % 3]!;
        const endpoint = endpoints[Math.floor(i / 3) % 3]!;
        if (i % 50 === 7) requests.push({ key: 'tg_test_no-such-key', endpoint });
        else if (i % 50 === 21) requests.push({ tenant: suspended, endpoint });
        else if (i % 2 === 0) requests.push({ key: t.key, endpoint, subject: `user-${i % 7}` });
        else requests.push({ tenant: t.slug, endpoint, subject: `user-${i % 7}` });
      }
      const answers = await Promise.all(
        requests.map(async (body, i) => {
          const res = await fetch(`${apis.urls[i % 3]}/v1/check`, {
            method: 'POST',
            headers: { authorization: `Bearer ${serviceKey}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          expect(res.status).toBe(200);
          return (await res.json()) as Answer;
        }),
      );
      const bySlug = new Map(tenants.map((t) => [t.slug, t.id]));
      const suspendedId = (await prisma.tenant.findUniqueOrThrow({ where: { slug: suspended } })).id;
      for (const [i, a] of answers.entries()) {
        const route = requests[i]!.endpoint as string;
        if (a.reason === 'key_invalid') tally(NO_TENANT, null, route, 'refused');
        else if (a.reason === 'tenant_suspended') tally(suspendedId, null, route, 'refused');
        else if (a.reason) throw new Error(`unexpected refusal ${a.reason}`);
        else {
          const tenantId = bySlug.get(a.tenant!)!;
          const policyId = a.policy === undefined ? null : policies.get(tenantId)!.get(a.policy)!;
          tally(tenantId, policyId, route, a.wouldDeny ? 'shadow_denied' : a.allowed ? 'allowed' : 'denied');
        }
      }
      // Every kind of answer is there.
      const results = new Set([...expected.keys()].map((k) => k.split('|')[2]));
      expect([...results].sort()).toEqual(['allowed', 'denied', 'refused', 'shadow_denied']);

      // The open minute is written as it goes (every 10 s, the default), then again once closed: what is compared is the
      // closed minutes' final rollup, the worker having rolled up the minute of the last answer.
      const lastMinute = minuteOf(Number((await redis.time())[0]) * 1000);
      const worker = await startWorker({ DATABASE_URL: stores.databaseUrl, ...stores.env, USAGE_ROLLUP_EVERY_MS: '1000', USAGE_GRACE_S: '2' });
      try {
        const total = answers.length;
        const rolledUp = async () => Number((await redis.get(ROLLED_KEY)) ?? 0) >= lastMinute;
        // The minute of the last answer closes, then the grace period, then a rollup: about a minute and a half.
        const complete = async () => {
          for (const table of [...TABLES, ...ROUTE_TABLES]) if ((await sum(table)) !== total) return false;
          return true;
        };
        await waitFor(async () => (await rolledUp()) && (await complete()), 150_000, 1_000).catch(async (err: unknown) => {
          const sums = await Promise.all([...TABLES, ...ROUTE_TABLES].map((table) => sum(table)));
          throw new Error(`${String(err)}: ${total} answers, ${[...TABLES, ...ROUTE_TABLES].join('/')} hold ${sums.join('/')}\n${worker.logs()}\n${apis.logs()}`);
        });
        for (const table of TABLES) expect(await totals(table), table).toEqual(new Map([...expected].sort()));
        // Every route's counts, per tenant and result, are the answers its checks got.
        for (const table of ROUTE_TABLES) expect(await routeTotals(table), table).toEqual(new Map([...expectedRoutes].sort()));

        // Rolled up again from the start (the hashes are kept for an hour after their rollup): the same rows.
        const before = await rows();
        await redis.del(ROLLED_KEY);
        await waitFor(async () => (await redis.exists(ROLLED_KEY)) === 1, 30_000, 500);
        await waitFor(async () => JSON.stringify(await rows()) === JSON.stringify(before), 30_000, 500);
        expect(await rows()).toEqual(before);
      } finally {
        await worker.stop();
      }
      // Up to a minute for the last answer's minute to close, then the grace period and a rollup, twice.
    }, 240_000);

    async function sum(table: (typeof TABLES)[number] | (typeof ROUTE_TABLES)[number]): Promise<number> {
      const [row] = await prisma.$queryRawUnsafe<{ n: bigint | null }[]>(`select sum(decisions) as n from ${table}`);
      return Number(row?.n ?? 0);
    }

    async function totals(table: (typeof TABLES)[number]): Promise<Map<string, number>> {
      const found = await prisma.$queryRawUnsafe<{ tenant: string | null; policy: string | null; result: string; n: bigint }[]>(
        `select tenant_id::text as tenant, policy_id::text as policy, result::text as result, sum(decisions) as n from ${table} group by 1, 2, 3`,
      );
      return new Map(found.map((r) => [`${r.tenant ?? NO_TENANT}|${r.policy ?? '-'}|${r.result}`, Number(r.n)] as const).sort());
    }

    /** Per tenant (the nil UUID: none), route and result. */
    async function routeTotals(table: (typeof ROUTE_TABLES)[number]): Promise<Map<string, number>> {
      const found = await prisma.$queryRawUnsafe<{ tenant: string; route: string; result: string; n: bigint }[]>(
        `select tenant_id::text as tenant, route, result::text as result, sum(decisions) as n from ${table} group by 1, 2, 3`,
      );
      return new Map(found.map((r) => [`${r.tenant === KEY_USAGE_NO_TENANT ? NO_TENANT : r.tenant}|${r.route}|${r.result}`, Number(r.n)] as const).sort());
    }

    async function rows(): Promise<unknown[]> {
      return prisma.$queryRawUnsafe(
        `select 'm' as t, bucket::text as b, tenant_id::text, policy_id::text, result::text, reason, decisions::text, cost::text from usage_minute
         union all select 'h', bucket::text, tenant_id::text, policy_id::text, result::text, reason, decisions::text, cost::text from usage_hour
         union all select 'd', day::text, tenant_id::text, policy_id::text, result::text, reason, decisions::text, cost::text from usage_day
         union all select 'rm', bucket::text, tenant_id::text, route, result::text, reason, decisions::text, '' from usage_route_minute
         union all select 'rh', bucket::text, tenant_id::text, route, result::text, reason, decisions::text, '' from usage_route_hour
         union all select 'rd', day::text, tenant_id::text, route, result::text, reason, decisions::text, '' from usage_route_day
         order by 1, 2, 3, 4, 5, 6`,
      );
    }
  });
}
