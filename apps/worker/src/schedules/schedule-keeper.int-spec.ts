import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../../../../test/support/env';
import { RunLedger } from '../health/run-ledger';
import { WorkerHealth } from '../health/worker-health';
import type { WorkerSchedules } from './job-schedules';
import { ScheduleKeeper } from './schedule-keeper';

const quiet = { log: () => undefined, warn: () => undefined };

/** Two queues, three schedules, a retired one: what a worker keeps, under a prefix of the test's own. */
const plan: WorkerSchedules = {
  queues: [
    { queue: 'usage', globalConcurrency: 1 },
    { queue: 'alerts', globalConcurrency: 1 },
  ],
  schedules: [
    { queue: 'usage', id: 'usage-rollup', everyMs: 3_600_000, template: { removeOnComplete: true } },
    { queue: 'usage', id: 'usage-retention', everyMs: 7_200_000, template: { removeOnComplete: true } },
    { queue: 'alerts', id: 'alerts-evaluate', everyMs: 3_600_000, template: { removeOnComplete: true } },
  ],
  retired: [{ queue: 'alerts', id: 'alerts-old' }],
};

/** Deletes every key under `prefix`: Redis lost this worker's data (FLUSHALL, without touching other tests' keys). */
async function loseEverything(redis: Redis, prefix: string): Promise<void> {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
}

describe('ScheduleKeeper (real Redis)', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL);
  });
  afterAll(() => redis?.disconnect());

  const keepers = (prefix: string, n: number) =>
    Array.from({ length: n }, () => {
      const connection = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
      const health = new WorkerHealth(plan.schedules, [], 3);
      return { connection, health, keeper: new ScheduleKeeper(connection, plan, health, { prefix, checkEveryMs: 60_000, log: quiet }) };
    });
  const stopAll = async (all: ReturnType<typeof keepers>) => {
    for (const k of all) {
      await k.keeper.stop();
      k.connection.disconnect();
    }
  };
  /** Each queue's schedulers, and how many jobs wait for each (one each: the next run). */
  const inRedis = async (prefix: string) => {
    const state: Record<string, { schedulers: string[]; delayed: number; concurrency: number | null }> = {};
    for (const { queue } of plan.queues) {
      const q = new Queue(queue, { connection: { url: TEST_REDIS_URL }, prefix });
      state[queue] = {
        schedulers: (await q.getJobSchedulers()).map((s) => s.key).sort(),
        delayed: (await q.getJobs(['delayed', 'waiting', 'prioritized'])).length,
        concurrency: await q.getGlobalConcurrency(),
      };
      await q.close();
    }
    return state;
  };
  const expected = {
    usage: { schedulers: ['usage-retention', 'usage-rollup'], delayed: 2, concurrency: 1 },
    alerts: { schedulers: ['alerts-evaluate'], delayed: 1, concurrency: 1 },
  };

  it('makes each schedule once when several workers start together, and removes the retired one', async () => {
    const prefix = `{keeper-${randomUUID().slice(0, 8)}}`;
    const old = new Queue('alerts', { connection: { url: TEST_REDIS_URL }, prefix });
    // Its first run far ahead: what waits for it is its scheduler's next job only.
    await old.upsertJobScheduler('alerts-old', { every: 1_000_000, startDate: Date.now() + 1_000_000 }, { name: 'alerts-old' });
    await old.close();
    const all = keepers(prefix, 3);
    try {
      await Promise.all(all.map((k) => k.keeper.start()));
      expect(await inRedis(prefix)).toEqual(expected);
      for (const k of all) expect(k.health.report(() => ({ completedAt: Date.now(), failedAt: null })).status).toBe('ok');
    } finally {
      await stopAll(all);
    }
  });

  it('puts back every schedule and queue setting Redis lost, once however many workers check at once, and says so in their health', async () => {
    const prefix = `{keeper-${randomUUID().slice(0, 8)}}`;
    const all = keepers(prefix, 3);
    try {
      await Promise.all(all.map((k) => k.keeper.start()));
      await loseEverything(redis, prefix);
      expect((await inRedis(prefix)).usage).toEqual({ schedulers: [], delayed: 0, concurrency: null });
      await Promise.all(all.map((k) => k.keeper.check('timer')));
      expect(await inRedis(prefix)).toEqual(expected);
      // Each worker found some gone and put them back (who was first for which is a race); together, all of them.
      const restored = all.flatMap((k) => k.health.report(() => ({ completedAt: Date.now(), failedAt: null })).incidents);
      expect(new Set(restored.filter((i) => i.kind === 'schedule-missing').map((i) => i.subject))).toEqual(new Set(plan.schedules.map((s) => s.id)));
      expect(restored.every((i) => i.until !== null)).toBe(true);
      // A check that finds everything in place changes nothing.
      await all[0]!.keeper.check('timer');
      expect(await inRedis(prefix)).toEqual(expected);
    } finally {
      await stopAll(all);
    }
  });

  it('replaces a schedule whose interval another version set', async () => {
    const prefix = `{keeper-${randomUUID().slice(0, 8)}}`;
    const [k] = keepers(prefix, 1);
    try {
      await k!.keeper.start();
      const q = new Queue('usage', { connection: { url: TEST_REDIS_URL }, prefix });
      await q.upsertJobScheduler('usage-rollup', { every: 5_000 }, { name: 'usage-rollup' });
      await k!.keeper.check('timer');
      expect((await q.getJobScheduler('usage-rollup'))?.every).toBe(3_600_000);
      await q.close();
    } finally {
      await stopAll([k!]);
    }
  });
});

describe('RunLedger (real Redis)', () => {
  it("shares each worker's runs with the others, and keeps what it saw when Redis loses them", async () => {
    const key = `{ledger-${randomUUID().slice(0, 8)}}:worker-runs`;
    const a = new Redis(TEST_REDIS_URL);
    const b = new Redis(TEST_REDIS_URL);
    try {
      const first = new RunLedger(a, key);
      const second = new RunLedger(b, key);
      first.record('usage', 'usage-rollup', 'completed', 1_000);
      first.record('usage', 'usage-rollup', 'failed', 1_500);
      second.record('usage', 'usage-rollup', 'completed', 900);
      await new Promise((r) => setTimeout(r, 100)); // the writes are in the background
      await second.refresh();
      expect(second.of('usage', 'usage-rollup')).toEqual({ completedAt: 1_000, failedAt: 1_500 });
      expect(second.of('alerts', 'alerts-evaluate')).toEqual({ completedAt: null, failedAt: null });
      await a.del(key);
      await first.refresh();
      expect(first.of('usage', 'usage-rollup')).toEqual({ completedAt: 1_000, failedAt: 1_500 });
    } finally {
      await a.del(key);
      a.disconnect();
      b.disconnect();
    }
  });
});
