import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { tenantKeyPrefix } from '@tollgate/limiter';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SERVICE_KEY } from '../../prisma/demo';
import { testRedisUrl } from '../support/env';
import { awayFromMinuteBoundary, createServiceKey, createTenant, createTenantKey, sleep, waitFor } from '../support/fixtures';
import { startCluster } from '../support/redis-cluster';
import { replicaOf, startSentinel, type HostPort } from '../support/redis-sentinel';
import { LIVE_USAGE, operatorApi, ruleVersionInForce, startApiProcesses, startStack, type Stack } from '../support/stack';
import { startReceiver } from '../support/webhook-receiver';

// The demo's story on each Redis topology Tollgate runs on (docs/reliability.md#redis-topologies): one Redis, a Redis
// Cluster of 3 primaries with a replica each, and a primary with a replica under 3 sentinels — started by the test,
// the API ×2 and the worker given only the topology's settings (REDIS_URL, REDIS_CLUSTER_NODES, or REDIS_SENTINELS
// and REDIS_SENTINEL_MASTER). On each: exact decisions, an admin change enforced by both nodes, forward-auth, usage
// rolled up into Postgres, an alert delivered as a signed webhook. Where there is a replica, the primary holding a
// tenant's keys is killed under load: the failure mode answers the gap, both nodes decide on the promoted replica
// again with nothing restarted, the rule set, the usage rollup and the webhook go on.

/** Checks of a subject without an endpoint policy are decided, while Redis cannot, by `local`: each node its share. */
const NODES = 2;
const FAILOVER_ENV = { DEFAULT_FAILURE_MODE: 'local', LOCAL_FAILOVER_NODES: String(NODES), BREAKER_FAILURES: '3', BREAKER_COOLDOWN_MS: '200', USAGE_FLUSH_MS: '200' };

interface Answer {
  node: number;
  status: number;
  allowed: boolean;
  degraded: boolean;
}

/** How a topology loses the primary that holds a tenant's keys, and promotes its replica. */
interface Failover {
  /** Finds the primary holding `tenantId`'s keys (and its replica). */
  prepare(tenantId: string): Promise<void>;
  /** Waits until that replica has applied every write its primary had. */
  replicaCaughtUp(): Promise<void>;
  /** SIGKILLs that primary: a crash, nothing handed over. */
  kill(): void;
  /** Waits until the replica is the primary of those keys. */
  promoted(): Promise<void>;
}

interface Topology {
  env: Record<string, string>;
  /** Null on one Redis: there is no replica to promote. */
  failover: Failover | null;
  stop(): Promise<void>;
}

/** The suite's Redis, the database startStack uses (given to the second API node too). */
const oneRedis = async (): Promise<Topology> => ({ env: { REDIS_URL: testRedisUrl(2) }, failover: null, stop: async () => undefined });

/** The primary killed is the one holding the failing tenant's slot; the cluster promotes its replica within ~2 × 2 s. */
const cluster = async (): Promise<Topology> => {
  const servers = await startCluster({ replicas: 1, nodeTimeoutMs: 2_000, requireFullCoverage: false });
  let key = '';
  let primary = 0;
  return {
    env: { REDIS_CLUSTER_NODES: servers.nodes.map((n) => `${n.host}:${n.port}`).join(',') },
    failover: {
      async prepare(tenantId) {
        key = tenantKeyPrefix(tenantId);
        primary = await servers.primaryOf(key);
      },
      replicaCaughtUp: () => servers.replicaCaughtUp(primary),
      kill: () => servers.kill(primary),
      promoted: async () => void (await servers.waitForFailover(key, primary)),
    },
    stop: () => servers.stop(),
  };
};

const sentinel = async (): Promise<Topology> => {
  const servers = await startSentinel({ sentinels: 3 });
  let replica: HostPort | undefined;
  return {
    env: servers.env,
    failover: {
      async prepare() {
        replica = await replicaOf(servers);
      },
      replicaCaughtUp: () => servers.replicaCaughtUp(),
      kill: () => void servers.killPrimary(),
      promoted: async () => void (await servers.waitForPromotion(replica!)),
    },
    stop: () => servers.stop(),
  };
};

/** Each topology's story: its name, its database's suffix, how it starts. */
const TOPOLOGIES: [name: string, id: string, start: () => Promise<Topology>][] = [
  ['one Redis', 'redis_one', oneRedis],
  ['a Redis Cluster: 3 primaries, a replica each', 'redis_cluster', cluster],
  ['Redis Sentinel: a primary, a replica, 3 sentinels', 'redis_sentinel', sentinel],
];

describe.each(TOPOLOGIES)('the demo on %s', (_name, id, start) => {
  let topology: Topology;
  let stack: Stack;
  let second: Awaited<ReturnType<typeof startApiProcesses>>;
  let prisma: PrismaClient;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let admin: Awaited<ReturnType<typeof operatorApi>>;
  let nodes: string[];
  /** A key for every tenant; a tenant (its own plan: 2 a minute) behind a gateway, with its key; one for the failover (20 a day). */
  let serviceKey: string;
  let gateway: { id: string; key: string };
  let failingTenant: string;
  /** Every answer, as usage must count it. */
  let answered = 0;

  beforeAll(async () => {
    topology = await start();
    const env = {
      ...topology.env,
      ...FAILOVER_ENV,
      ...LIVE_USAGE,
      ALERTS_EVALUATE_EVERY_MS: '1000',
      WEBHOOK_ALLOWED_DESTINATIONS: '127.0.0.1',
      WEBHOOK_DISPATCH_EVERY_MS: '200',
    };
    stack = await startStack(id, { ...env, LOG_LEVEL: process.env.STORY_LOG_LEVEL ?? 'warn' }, { dashboard: false });
    second = await startApiProcesses(1, { DATABASE_URL: stack.databaseUrl, ...env });
    nodes = [stack.apiUrl, second.urls[0]!];
    prisma = createPrismaClient(stack.databaseUrl, { poolSize: 2 });
    receiver = await startReceiver();
    admin = await operatorApi(stack);
    // In the rule set from the next version on (the limit change below publishes one).
    serviceKey = await createServiceKey(prisma);
    const behindGateway = (await createTenant(prisma, [{ name: 'minute', windowS: 60, limit: 2 }])).tenant;
    gateway = { id: behindGateway.id, key: (await createTenantKey(prisma, behindGateway.id)).key };
    // A day's window: no window ends during the failover (a minute's could, and start counting afresh).
    const failing = (await createTenant(prisma, [{ name: 'day', windowS: 86_400, limit: 20 }])).tenant;
    failingTenant = failing.slug;
    await topology.failover?.prepare(failing.id);
  }, 240_000);
  afterAll(async () => {
    await second?.stop();
    await stack?.stop();
    await receiver?.close();
    await prisma?.$disconnect();
    await topology?.stop();
  });

  /** A check of the demo's tenant with the demo's key (its limits count the tenant as a whole), or of `tenant` with the test's. */
  const check = async (node: number, tenant = 'acme'): Promise<Answer> => {
    const res = await fetch(`${nodes[node]}/v1/check`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant === 'acme' ? DEMO_SERVICE_KEY : serviceKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tenant, endpoint: 'GET /v1/items', subject: 'story' }),
    });
    answered += 1;
    const body = (await res.json()) as { allowed?: boolean; degraded?: boolean };
    return { node, status: res.status, allowed: body.allowed === true, degraded: body.degraded === true };
  };
  /** Fails with the apps' logs (and the worker's /health, whose port is logged with STORY_LOG_LEVEL=info). */
  const failIfLogsSay = async (err: unknown) => {
    const port = /GET \/health on [^:]+:(\d+)/.exec(stack.logs())?.[1];
    const health = port ? await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.text()).catch(String) : 'no health port';
    throw new Error(`${String(err)}\nWORKER HEALTH ${health}\n${stack.logs()}\n${second.logs()}`);
  };

  it('decides on Redis exactly: 10 of the demo minute allowed across both nodes, the 11th denied', async () => {
    await awayFromMinuteBoundary(20_000);
    const answers = [];
    for (let i = 0; i < 11; i += 1) answers.push(await check(i % NODES));
    expect(answers.map((a) => [a.status, a.allowed, a.degraded])).toEqual([...Array(10).fill([200, true, false]), [200, false, false]]);
  });

  it('enforces an admin limit change on both API nodes, without a restart', async () => {
    const starter = (await admin('GET', '/v1/admin/plans?q=starter')).body.items as { id: string; slug: string; limits: { id: string; name: string }[] }[];
    const plan = starter.find((p) => p.slug === 'starter')!;
    const changed = await admin('PATCH', `/v1/admin/plans/${plan.id}/limits/${plan.limits.find((l) => l.name === 'minute')!.id}`, { limit: 20 });
    expect(changed.status).toBe(200);
    const { version } = (await admin('GET', '/v1/admin/rule-sets/current')).body as { version: number };
    for (const url of nodes) await ruleVersionInForce(url, version, 10_000, 50);
    // The tenant denied at 10 has 10 more on either node, then the 21st is denied.
    const answers = [];
    for (let i = 0; i < 11; i += 1) answers.push(await check((i + 1) % NODES));
    expect(answers.map((a) => a.allowed)).toEqual([...Array(10).fill(true), false]);
    expect(answers.every((a) => a.status === 200 && !a.degraded)).toBe(true);
  });

  it('answers forward-auth from Redis across both nodes: 2 passes of a limit of 2, then 429 with Retry-After', async () => {
    const answers = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await fetch(`${nodes[i % NODES]}/v1/forward-auth`, {
        headers: { 'x-tollgate-key': serviceKey, 'x-api-key': gateway.key, 'x-forwarded-method': 'GET', 'x-forwarded-uri': '/v1/items' },
      });
      answered += 1;
      answers.push({ status: res.status, body: (await res.json()) as { degraded?: boolean }, retryAfter: Number(res.headers.get('retry-after')) });
    }
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    expect(answers.every((a) => a.body.degraded === undefined)).toBe(true);
    expect(answers[2]!.retryAfter).toBeGreaterThanOrEqual(1);
  });

  // One Redis has no replica to fail over to (what its outage does is the failure modes' tests): a story without a
  // failover step runs the steps after it on the Redis it started with.
  if (start !== oneRedis) {
    it('fails over under load: the gap is answered by the failure mode, then both nodes decide on the promoted replica, no answer an error', async () => {
      const failover = topology.failover!;
      const answers: (Answer & { phase: 'before' | 'gap' | 'after' })[] = [];
      let phase: 'before' | 'gap' | 'after' = 'before';
      let paused = false;
      let running = true;
      let settled = Infinity;
      // Steady load: 4 lanes, each a check every 5 ms or so, alternating nodes, on a tenant whose limit is 20 a day.
      const load = Promise.all(
        Array.from({ length: 4 }, async (_, lane) => {
          for (let i = lane; running; i += 4) {
            if (paused) {
              await sleep(5);
              continue;
            }
            const during = phase;
            answers.push({ ...(await check(i % NODES, failingTenant)), phase: during });
            await sleep(5);
          }
        }),
      );
      try {
        // Redis has decided the tenant's 20 and denies the rest.
        await waitFor(() => answers.filter((a) => !a.allowed).length >= 20, 20_000, 10);
        // A moment without checks in flight, until the replica has every write: what a failover loses from writes not
        // yet replicated is measured, not asserted here.
        paused = true;
        await sleep(100);
        await failover.replicaCaughtUp();
        failover.kill();
        phase = 'gap';
        paused = false;
        await failover.promoted();
        phase = 'after';
        // Both nodes decide on Redis again (not degraded) with nothing restarted, and say so on /health.
        await waitFor(() => [0, 1].every((node) => answers.some((a) => a.phase === 'after' && a.node === node && !a.degraded)), 20_000, 20).catch(failIfLogsSay);
        for (const url of nodes) await waitFor(async () => (await fetch(`${url}/health`)).status === 200, 10_000, 50);
        // The promotion has settled (every sentinel names the replica, both nodes reconnected): from now on, Redis.
        await sleep(1_000);
        settled = answers.length;
        await waitFor(() => [0, 1].every((node) => answers.slice(settled).filter((a) => a.node === node).length >= 20), 20_000, 20);
      } finally {
        running = false;
        await load;
      }

      expect(answers.filter((a) => a.status !== 200)).toEqual([]);
      // Redis allowed the limit's 20 before the primary died and nothing after: the promoted replica had every charge.
      expect(answers.filter((a) => a.allowed && !a.degraded).length).toBe(20);
      expect(answers.filter((a) => a.allowed && !a.degraded && a.phase !== 'before')).toEqual([]);
      // The gap was answered by `local`: each node within its share, 20 ÷ 2.
      const degraded = answers.filter((a) => a.degraded);
      expect(degraded.length).toBeGreaterThan(0);
      for (const node of [0, 1]) expect(degraded.filter((a) => a.node === node && a.allowed).length).toBeLessThanOrEqual(20 / NODES);
      // Once the promotion settled, both nodes stay on Redis.
      expect(answers.slice(settled).filter((a) => a.degraded)).toEqual([]);
    });
  }

  it('enforces a second admin change on both nodes: the rule set is published to the primary in force (the promoted one after a failover)', async () => {
    const starter = (await admin('GET', '/v1/admin/plans?q=starter')).body.items as { id: string; slug: string; limits: { id: string; name: string }[] }[];
    const plan = starter.find((p) => p.slug === 'starter')!;
    expect((await admin('PATCH', `/v1/admin/plans/${plan.id}/limits/${plan.limits.find((l) => l.name === 'daily')!.id}`, { limit: 2000 })).status).toBe(200);
    const { version } = (await admin('GET', '/v1/admin/rule-sets/current')).body as { version: number };
    for (const url of nodes) await ruleVersionInForce(url, version, 10_000, 50);
    for (const node of [0, 1]) {
      const res = await fetch(`${nodes[node]}/v1/check`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEMO_SERVICE_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ tenant: 'acme', endpoint: 'GET /v1/items', subject: 'story' }),
      });
      answered += 1;
      const body = (await res.json()) as { ruleVersion: number; limits: { name: string; limit: number }[]; degraded?: boolean };
      expect(body).toMatchObject({ ruleVersion: version });
      expect(body.degraded).toBeUndefined();
      expect(body.limits.find((l) => l.name === 'daily')?.limit).toBe(2000);
    }
  });

  it('rolls usage up into Postgres: every answer counted once, those of a failover\'s gap too', async () => {
    const counted = async () => Number((await prisma.$queryRaw<{ n: bigint | null }[]>`select sum(decisions) as n from usage_minute`)[0]?.n ?? 0);
    await waitFor(async () => (await counted()) === answered, 60_000, 200).catch(async (err: unknown) => failIfLogsSay(`${String(err)}: ${answered} answers, ${await counted()} counted`));
  }, 90_000);

  it('delivers an alert as a signed webhook: the worker evaluates and sends, after a failover too', async () => {
    // The tenant behind the gateway: 1 of its 3 decisions denied by its limit.
    const hook = await admin('POST', '/v1/admin/webhooks', { url: `${receiver.url}/alerts`, eventTypes: ['denied_rate.firing'] });
    expect(hook.status).toBe(201);
    const rule = await admin('POST', '/v1/admin/alert-rules', { name: 'gateway-429', kind: 'denied_rate', tenantId: gateway.id, params: { ratePercent: 20, minDecisions: 3, pendingMinutes: 0 } });
    expect(rule.status).toBe(201);
    await waitFor(() => receiver.received.length > 0, 60_000, 100).catch(failIfLogsSay);
    const [delivered] = receiver.received;
    expect(new Webhook(hook.body.secret as string).verify(delivered!.body, delivered!.headers as Record<string, string>)).toMatchObject({ type: 'denied_rate.firing' });
  }, 90_000);
});
