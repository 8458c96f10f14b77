import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '@tollgate/db';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testRedisUrl } from '../../../test/support/env';
import { awayFromMinuteBoundary, utcAndKolkataTenants } from '../../../test/support/fixtures';
import { startCluster, type TestCluster } from '../../../test/support/redis-cluster';
import { useOwnDatabase } from '../../../test/support/own-database';
import { costField, countField, routeField, type UsageResult } from './fields';
import { KEY_USAGE_NO_TENANT } from './key-usage-writer';
import { activeTenantsKey, COUNTED_KEY, minuteOf, NO_TENANT, ROLLED_KEY, USAGE_KEY_TTL_S, USAGE_ROLLED_TTL_S, usageKey } from './keys';
import { PostgresUsageWriter } from './postgres-writer';
import { type UsageRedis, UsageRollup } from './rollup';
import type { UsageWriter } from './store';

// A database and a Redis database of this file's own: it empties both between tests.
const redisUrl = testRedisUrl(11);

/** One count as the API writes it: the decisions and units of a tenant's policy, result and reason in a minute, and its route's. */
interface Written {
  minute: number;
  tenant: string;
  policy: string | null;
  route: string;
  result: UsageResult;
  reason: string;
  decisions: number;
  cost: number;
}

/** Writes counts into Redis as the limit script and the API nodes do: HINCRBY on the tenant's hash, SADD to the minute's set. */
async function count(redis: UsageRedis, w: Written): Promise<void> {
  const key = usageKey(w.tenant, w.minute);
  await redis.hincrby(key, countField(w.policy, w.result, w.reason), w.decisions);
  await redis.hincrby(key, routeField(w.route, w.result, w.reason), w.decisions);
  if (w.cost !== 0) await redis.hincrby(key, costField(w.policy, w.result, w.reason), w.cost);
  await redis.expire(key, USAGE_KEY_TTL_S);
  await redis.sadd(activeTenantsKey(w.minute), w.tenant);
  await redis.expire(activeTenantsKey(w.minute), USAGE_KEY_TTL_S);
}

async function redisMinute(redis: UsageRedis): Promise<number> {
  const [seconds] = await redis.time();
  return minuteOf(Number(seconds) * 1000);
}

function rollupScenarios(name: string, connect: () => Promise<{ redis: UsageRedis; flush(): Promise<void>; stop(): Promise<void> }>) {
  describe(`the usage rollup (${name})`, () => {
    let prisma: PrismaClient;
    let redis: UsageRedis;
    let handle: Awaited<ReturnType<typeof connect>>;
    let writer: PostgresUsageWriter;
    let tenants: string[];
    const policies = [randomUUID(), randomUUID(), null];

    const snapshot = async () => ({
      minutes: await prisma.$queryRaw<unknown[]>`SELECT id, bucket, tenant_id::text, policy_id::text, result::text, reason, decisions, cost FROM usage_minute ORDER BY id`,
      hours: await prisma.$queryRaw<unknown[]>`SELECT id, bucket, tenant_id::text, policy_id::text, result::text, reason, decisions, cost FROM usage_hour ORDER BY id`,
      days: await prisma.$queryRaw<unknown[]>`SELECT id, day::text, tenant_id::text, policy_id::text, result::text, reason, decisions, cost FROM usage_day ORDER BY id`,
      routes: await routeRows(),
    });
    /** The route rows of minutes, hours and days, in key order. */
    const routeRows = () =>
      prisma.$queryRaw<unknown[]>`
        SELECT 'm' AS t, bucket::text AS b, tenant_id::text, route, result::text, reason, decisions FROM usage_route_minute
        UNION ALL SELECT 'h', bucket::text, tenant_id::text, route, result::text, reason, decisions FROM usage_route_hour
        UNION ALL SELECT 'd', day::text, tenant_id::text, route, result::text, reason, decisions FROM usage_route_day
        ORDER BY 1, 2, 3, 4, 5, 6`;
    /** Decisions per (bucket of the table, tenant, route, result, reason), as text keys, from Postgres (no tenant: null). */
    const routeTotals = async (table: 'usage_route_minute' | 'usage_route_hour') => {
      const rows = await prisma.$queryRawUnsafe<{ bucket: Date; tenant_id: string; route: string; result: string; reason: string; decisions: bigint }[]>(
        `SELECT bucket, tenant_id::text, route, result::text, reason, decisions FROM ${table}`,
      );
      return new Map(rows.map((r) => [`${r.bucket.getTime() / 1000}|${r.tenant_id === KEY_USAGE_NO_TENANT ? null : r.tenant_id}|${r.route}|${r.result}|${r.reason}`, Number(r.decisions)]));
    };
    /** What the same should be, from what was written into Redis. */
    const expectedRoutes = (written: Written[], bucketOf: (minute: number) => number) => {
      const sums = new Map<string, number>();
      for (const w of written) {
        const key = `${bucketOf(w.minute)}|${w.tenant === NO_TENANT ? null : w.tenant}|${w.route}|${w.result}|${w.reason}`;
        sums.set(key, (sums.get(key) ?? 0) + w.decisions);
      }
      return sums;
    };
    /** Sums per (bucket of the table, tenant, policy, result, reason), as text keys, from Postgres. */
    const totals = async (table: 'usage_minute' | 'usage_hour') => {
      const rows = table === 'usage_minute'
        ? await prisma.$queryRaw<{ bucket: Date; tenant_id: string | null; policy_id: string | null; result: string; reason: string; decisions: bigint; cost: bigint }[]>`
            SELECT bucket, tenant_id::text, policy_id::text, result::text, reason, decisions, cost FROM usage_minute`
        : await prisma.$queryRaw<{ bucket: Date; tenant_id: string | null; policy_id: string | null; result: string; reason: string; decisions: bigint; cost: bigint }[]>`
            SELECT bucket, tenant_id::text, policy_id::text, result::text, reason, decisions, cost FROM usage_hour`;
      return new Map(rows.map((r) => [`${r.bucket.getTime() / 1000}|${r.tenant_id}|${r.policy_id}|${r.result}|${r.reason}`, [Number(r.decisions), Number(r.cost)]]));
    };
    /** What the same sums should be, from what was written into Redis. */
    const expected = (written: Written[], bucketOf: (minute: number) => number) => {
      const sums = new Map<string, number[]>();
      for (const w of written) {
        const key = `${bucketOf(w.minute)}|${w.tenant === NO_TENANT ? null : w.tenant}|${w.policy}|${w.result}|${w.reason}`;
        const sum = sums.get(key) ?? [0, 0];
        sums.set(key, [sum[0]! + w.decisions, sum[1]! + w.cost]);
      }
      return sums;
    };

    /** Counts for every tenant (and no tenant), policy and result over the minutes given. */
    const writeTraffic = async (minutes: number[]): Promise<Written[]> => {
      const written: Written[] = [];
      let n = 0;
      for (const minute of minutes) {
        for (const tenant of [...tenants, NO_TENANT]) {
          for (const policy of policies) {
            n += 1;
            const results: [UsageResult, string, number, number][] = tenant === NO_TENANT
              ? [['refused', 'key_invalid', 1 + (n % 3), 0]]
              : [['allowed', '', 3 + (n % 5), 2 * (3 + (n % 5))], ['denied', 'minute', 1 + (n % 2), 0], ['degraded_allowed', 'open', n % 2, n % 2]];
            for (const [result, reason, decisions, cost] of results) {
              if (decisions === 0) continue;
              const route = tenant === NO_TENANT ? 'POST /v1/orders' : `GET /v1/p${policies.indexOf(policy)}`;
              const w = { minute, tenant, policy, route, result, reason, decisions, cost };
              await count(redis, w);
              written.push(w);
            }
          }
        }
      }
      return written;
    };

    useOwnDatabase('usage_rollup', (client) => (prisma = client));
    beforeAll(async () => {
      writer = new PostgresUsageWriter(prisma);
      tenants = [...(await utcAndKolkataTenants(prisma)), randomUUID()];
      handle = await connect();
      redis = handle.redis;
    });
    afterAll(async () => {
      await handle?.stop();
    });
    beforeEach(async () => {
      await handle.flush();
      await prisma.$executeRaw`TRUNCATE usage_minute, usage_hour, usage_day, usage_route_minute, usage_route_hour, usage_route_day`;
    });

    it('rolls up every closed minute into minutes, hours and days equal to what was counted, and not the open one', async () => {
      const now = await redisMinute(redis);
      const closed = [now - 300, now - 240, now - 180, now - 120];
      await redis.set(ROLLED_KEY, String(now - 600));
      const written = await writeTraffic([...closed, now]);
      await redis.sadd(activeTenantsKey(now - 180), 'not-a-tenant-id');

      const run = await new UsageRollup(redis, writer, { graceS: 15 }).run();
      // The minute before the open one closes 15 s into the open one: rolled up or not, depending on Redis's clock.
      expect(run.skipped).toBe(1);
      expect([now - 120, now - 60]).toContain(run.rolledThrough);
      expect(await redis.get(ROLLED_KEY)).toBe(String(run.rolledThrough));

      const closedWritten = written.filter((w) => w.minute !== now);
      expect(await totals('usage_minute')).toEqual(expected(closedWritten, (m) => m));
      expect(await totals('usage_hour')).toEqual(expected(closedWritten, (m) => Math.floor(m / 3600) * 3600));
      const decisionsOf = (rows: { decisions: bigint }[]) => rows.reduce((t, r) => t + Number(r.decisions), 0);
      const dayRows = await prisma.$queryRaw<{ tenant_id: string | null; decisions: bigint }[]>`SELECT tenant_id::text, decisions FROM usage_day`;
      for (const tenant of [...tenants, NO_TENANT]) {
        const stored = tenant === NO_TENANT ? null : tenant;
        expect(decisionsOf(dayRows.filter((r) => r.tenant_id === stored))).toBe(
          closedWritten.filter((w) => w.tenant === tenant).reduce((t, w) => t + w.decisions, 0),
        );
      }
      // The same per route: minutes, hours, and each tenant's days.
      expect(await routeTotals('usage_route_minute')).toEqual(expectedRoutes(closedWritten, (m) => m));
      expect(await routeTotals('usage_route_hour')).toEqual(expectedRoutes(closedWritten, (m) => Math.floor(m / 3600) * 3600));
      const routeDays = await prisma.$queryRaw<{ tenant_id: string; decisions: bigint }[]>`SELECT tenant_id::text, decisions FROM usage_route_day`;
      for (const tenant of [...tenants, NO_TENANT]) {
        const stored = tenant === NO_TENANT ? KEY_USAGE_NO_TENANT : tenant;
        expect(decisionsOf(routeDays.filter((r) => r.tenant_id === stored))).toBe(
          closedWritten.filter((w) => w.tenant === tenant).reduce((t, w) => t + w.decisions, 0),
        );
      }
      // The open minute is not in Postgres, and its hash keeps its own TTL; rolled hashes and sets keep an hour.
      expect(await prisma.usageMinute.count({ where: { bucket: new Date(now * 1000) } })).toBe(0);
      expect(await redis.ttl(usageKey(tenants[0]!, now))).toBeGreaterThan(USAGE_ROLLED_TTL_S);
      expect(await redis.ttl(usageKey(tenants[0]!, now - 300))).toBeLessThanOrEqual(USAGE_ROLLED_TTL_S);
      expect(await redis.ttl(activeTenantsKey(now - 300))).toBeLessThanOrEqual(USAGE_ROLLED_TTL_S);

      // Run again, and again from the start as if the first had never been marked: the same rows, ids and all.
      const rows = await snapshot();
      await new UsageRollup(redis, writer, { graceS: 15 }).run();
      await redis.set(ROLLED_KEY, String(now - 600));
      expect((await new UsageRollup(redis, writer, { graceS: 15 }).run()).rolledThrough).toBeGreaterThanOrEqual(now - 120);
      expect(await snapshot()).toEqual(rows);
    });

    it('leaves the same rows as a clean run after a run that stopped anywhere, or two runs at once', async () => {
      const now = await redisMinute(redis);
      const closed = [now - 360, now - 300, now - 240, now - 180, now - 120];
      await redis.set(ROLLED_KEY, String(now - 420));
      await writeTraffic(closed);
      await new UsageRollup(redis, writer, { graceS: 15 }).run();
      const clean = await totals('usage_minute');
      const cleanHours = await totals('usage_hour');
      const cleanDays = await prisma.$queryRaw<unknown[]>`SELECT day::text, tenant_id::text, policy_id::text, result::text, reason, decisions, cost FROM usage_day ORDER BY 1, 2, 3, 4, 5`;
      const cleanRoutes = await routeRows();

      // Stopped before a write, and after one (its hashes not yet marked, the rolled minute not moved).
      for (const failAfterWrite of [false, true]) {
        await prisma.$executeRaw`TRUNCATE usage_minute, usage_hour, usage_day, usage_route_minute, usage_route_hour, usage_route_day`;
        await redis.set(ROLLED_KEY, String(now - 420));
        let writes = 0;
        const failing: UsageWriter = {
          writeMinute: async (minute, counts, keys, routes) => {
            writes += 1;
            if (writes === 3 && !failAfterWrite) throw new Error('stopped');
            await writer.writeMinute(minute, counts, keys, routes);
            if (writes === 3) throw new Error('stopped');
          },
          deleteExpired: (now, retention) => writer.deleteExpired(now, retention),
        };
        await expect(new UsageRollup(redis, failing, { graceS: 15 }).run()).rejects.toThrow('stopped');
        expect(await redis.get(ROLLED_KEY)).toBe(String(now - 300));
        await new UsageRollup(redis, writer, { graceS: 15 }).run();
        expect(await totals('usage_minute')).toEqual(clean);
        expect(await totals('usage_hour')).toEqual(cleanHours);
        expect(await prisma.$queryRaw<unknown[]>`SELECT day::text, tenant_id::text, policy_id::text, result::text, reason, decisions, cost FROM usage_day ORDER BY 1, 2, 3, 4, 5`).toEqual(cleanDays);
        expect(await routeRows()).toEqual(cleanRoutes);
      }

      // Two rollups at once: the same rows, and the rolled minute where the furthest left it.
      await prisma.$executeRaw`TRUNCATE usage_minute, usage_hour, usage_day, usage_route_minute, usage_route_hour, usage_route_day`;
      await redis.set(ROLLED_KEY, String(now - 420));
      await Promise.all([new UsageRollup(redis, writer, { graceS: 15 }).run(), new UsageRollup(redis, writer, { graceS: 15, maxMinutesPerRun: 2 }).run()]);
      expect([String(now - 120), String(now - 60)]).toContain(await redis.get(ROLLED_KEY));
      expect(await totals('usage_minute')).toEqual(clean);
      expect(await totals('usage_hour')).toEqual(cleanHours);
      expect(await routeRows()).toEqual(cleanRoutes);
    });

    it('never moves the rolled minute back, and never erases a tenant whose hash expired after its rollup', async () => {
      const now = await redisMinute(redis);
      const closed = [now - 300, now - 240, now - 180];
      await redis.set(ROLLED_KEY, String(now - 360));
      await writeTraffic(closed);
      // Another worker moves the rolled minute further while this one writes its first minute.
      const ahead = now + 3600;
      const racing: UsageWriter = {
        writeMinute: async (minute, counts, keys, routes) => {
          await writer.writeMinute(minute, counts, keys, routes);
          if (minute === closed[0]) await redis.set(ROLLED_KEY, String(ahead));
        },
        deleteExpired: (at, retention) => writer.deleteExpired(at, retention),
      };
      await new UsageRollup(redis, racing, { graceS: 15 }).run();
      expect(await redis.get(ROLLED_KEY)).toBe(String(ahead));

      // The hashes of one tenant expire; the minutes are read again: that tenant's rows stay as they were.
      const rows = await snapshot();
      for (const minute of closed) await redis.del(usageKey(tenants[0]!, minute));
      await redis.set(ROLLED_KEY, String(now - 360));
      await new UsageRollup(redis, writer, { graceS: 15 }).run();
      expect(await snapshot()).toEqual(rows);
    });

    it('writes the minutes not closed yet with their counts so far when asked, after the closed ones, and their final counts once closed', async () => {
      // The test's minute must stay open throughout.
      await awayFromMinuteBoundary(10_000);
      const now = await redisMinute(redis);
      await redis.set(ROLLED_KEY, String(now - 180));
      const written = await writeTraffic([now - 120, now - 60, now]);
      // No grace: every minute before Redis's own is closed, the current one is not.
      const rollup = new UsageRollup(redis, writer, { graceS: 0, liveEveryMs: 1 });
      await redis.del(COUNTED_KEY);
      const before = Date.now();
      const first = await rollup.run();
      expect(first).toMatchObject({ minutes: 2, rolledThrough: now - 60, liveMinutes: 1 });
      // Every count made before the run began is in the store: what is compared with them is read up to then.
      const counted = Number(await redis.get(COUNTED_KEY));
      expect(counted).toBeGreaterThanOrEqual(now * 1000);
      expect(counted).toBeLessThanOrEqual(Date.now() + 1000);
      expect(counted).toBeGreaterThanOrEqual(before - 1000);
      expect(await totals('usage_minute')).toEqual(expected(written, (m) => m));
      expect(await totals('usage_hour')).toEqual(expected(written, (m) => Math.floor(m / 3600) * 3600));
      // The open minute is not marked: its hash keeps its TTL, and the rolled minute stays before it.
      expect(await redis.get(ROLLED_KEY)).toBe(String(now - 60));
      expect(await redis.ttl(usageKey(tenants[0]!, now))).toBeGreaterThan(USAGE_ROLLED_TTL_S);

      // More counts in the open minute: the next live write replaces its rows with the new totals.
      const more = { minute: now, tenant: tenants[1]!, policy: policies[0]!, route: 'GET /v1/p0', result: 'allowed' as const, reason: '', decisions: 7, cost: 7 };
      await count(redis, more);
      // The next live write is due once four times the last one's duration has passed.
      let again = await rollup.run();
      for (let i = 0; i < 100 && again.liveMinutes === 0; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        again = await rollup.run();
      }
      expect(again.liveMinutes).toBe(1);
      expect(await totals('usage_minute')).toEqual(expected([...written, more], (m) => m));

      // Without the option, the open minute is left to its closed rollup.
      await prisma.$executeRaw`TRUNCATE usage_minute, usage_hour, usage_day, usage_route_minute, usage_route_hour, usage_route_day`;
      await redis.set(ROLLED_KEY, String(now - 180));
      await redis.del(COUNTED_KEY);
      expect(await new UsageRollup(redis, writer, { graceS: 0 }).run()).toMatchObject({ minutes: 2, liveMinutes: 0 });
      expect(await prisma.usageMinute.count({ where: { bucket: new Date(now * 1000) } })).toBe(0);
      // Closed minutes only: counted to the end of the last one.
      expect(await redis.get(COUNTED_KEY)).toBe(String(now * 1000));
    });

    it('spaces live writes by the runs that made them: a closed minute rolled up first, or a tick a little early, skips none', async () => {
      await awayFromMinuteBoundary(10_000);
      const now = await redisMinute(redis);
      await redis.set(ROLLED_KEY, String(now - 120));
      await writeTraffic([now - 60, now]);
      // The clock moves only as the writes take time: a closed minute 4 s, a live write `liveMs`.
      let t = 0;
      let liveMs = 100;
      const timed: UsageWriter = {
        writeMinute: async (minute, counts, keys) => {
          t += minute === now ? liveMs : 4_000;
          await writer.writeMinute(minute, counts, keys);
        },
        deleteExpired: (at, retention) => writer.deleteExpired(at, retention),
      };
      const rollup = new UsageRollup(redis, timed, { graceS: 0, liveEveryMs: 10_000, monotonicMs: () => t });
      // The tick that rolls the closed minute up writes the open one 4 s into its run.
      expect(await rollup.run()).toMatchObject({ minutes: 1, liveMinutes: 1 });
      // The next tick, 10 s after that run began (50 ms early, as a queue's tick may be), writes it again.
      t = 9_950;
      expect(await rollup.run()).toMatchObject({ minutes: 0, liveMinutes: 1 });
      // Not more often than every 10 s, though.
      t += 5_000;
      expect(await rollup.run()).toMatchObject({ liveMinutes: 0 });
      // A live write that takes 5 s spaces the next by 20 s (a quarter of the worker's time at most).
      t = 20_000;
      liveMs = 5_000;
      expect(await rollup.run()).toMatchObject({ liveMinutes: 1 });
      t = 30_000;
      expect(await rollup.run()).toMatchObject({ liveMinutes: 0 });
      t = 40_000;
      expect(await rollup.run()).toMatchObject({ liveMinutes: 1 });
    });

    it('writes no open minute while closed ones wait, and a closed minute written by a live write that came late is written again', async () => {
      // The test's minute must stay open throughout.
      await awayFromMinuteBoundary(10_000);
      const now = await redisMinute(redis);
      await redis.set(ROLLED_KEY, String(now - 240));
      const written = await writeTraffic([now - 180, now - 120, now - 60, now]);
      const behind = new UsageRollup(redis, writer, { graceS: 0, liveEveryMs: 1, maxMinutesPerRun: 2 });
      expect(await behind.run()).toMatchObject({ minutes: 2, liveMinutes: 0 });
      expect(await prisma.usageMinute.count({ where: { bucket: new Date(now * 1000) } })).toBe(0);

      // The live write of the open minute reads its hash; more counts arrive, the minute closes and another worker rolls
      // it up (the rolled minute moves to it); only then does the stale live write commit.
      const late = { minute: now, tenant: tenants[0]!, policy: null, route: 'GET /v1/p2', result: 'denied' as const, reason: 'minute', decisions: 5, cost: 0 };
      let raced = false;
      const racing: UsageWriter = {
        writeMinute: async (minute, counts, keys) => {
          if (minute === now && !raced) {
            raced = true;
            await count(redis, late);
            await writer.writeMinute(minute, counts, keys);
            await redis.set(ROLLED_KEY, String(now));
            return;
          }
          await writer.writeMinute(minute, counts, keys);
        },
        deleteExpired: (at, retention) => writer.deleteExpired(at, retention),
      };
      expect(await new UsageRollup(redis, racing, { graceS: 0, liveEveryMs: 1 }).run()).toMatchObject({ rolledThrough: now - 60, liveMinutes: 1 });
      expect(raced).toBe(true);
      expect(await totals('usage_minute')).toEqual(expected([...written, late], (m) => m));
    });

    it('starts two hours back when nothing was rolled up yet, at most the given number of minutes per run', async () => {
      const now = await redisMinute(redis);
      const written = await writeTraffic([now - 2 * 3600 - 60, now - 2 * 3600 + 60, now - 1800]);
      const rollup = new UsageRollup(redis, writer, { graceS: 15, maxMinutesPerRun: 60 });
      const first = await rollup.run();
      expect(first.minutes).toBe(60);
      // The minute before the look-back is not read; the first minute after it is.
      const minutes = await prisma.$queryRaw<{ bucket: Date }[]>`SELECT DISTINCT bucket FROM usage_minute ORDER BY bucket`;
      expect(minutes.map((r) => r.bucket.getTime() / 1000)).toEqual([now - 2 * 3600 + 60]);
      while ((await rollup.run()).minutes > 0);
      expect(await totals('usage_minute')).toEqual(expected(written.filter((w) => w.minute !== now - 2 * 3600 - 60), (m) => m));
    });
  });
}

rollupScenarios('one Redis', async () => {
  const redis = new Redis(redisUrl);
  return { redis, flush: async () => void (await redis.flushdb()), stop: async () => void redis.disconnect() };
});

let cluster: TestCluster | undefined;
rollupScenarios('Redis Cluster', async () => {
  cluster = await startCluster();
  const redis = cluster.client();
  return {
    redis,
    flush: async () => {
      await Promise.all(redis.nodes('master').map((node) => node.flushall()));
    },
    stop: async () => {
      await cluster?.stop();
    },
  };
});
