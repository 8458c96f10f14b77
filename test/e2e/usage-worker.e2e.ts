import { spawnSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPrismaClient, type PrismaClient } from '@tollgate/db';
import { activeTenantsKey, costField, countField, minuteOf, ROLLED_KEY, USAGE_KEY_TTL_S, usageKey } from '@tollgate/usage';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startRedisServer } from '../../scripts/lib/redis-server.mjs';
import { testDatabaseUrl, testRedisUrl } from '../support/env';
import { sleep } from '../support/fixtures';
import { recreateDatabase, runNode, startWorker, type WorkerProcess } from '../support/stack';

// A database and a Redis database of this file's own: the workers roll up whatever usage they find there.
const databaseUrl = testDatabaseUrl('usage_worker');
const redisUrl = testRedisUrl(12);

/** The built worker (`npx nx run worker:build`) against this file's database and `url`. */
function worker(env: Record<string, string> = {}, url = redisUrl): WorkerProcess {
  return startWorker({ DATABASE_URL: databaseUrl, REDIS_URL: url, LOG_LEVEL: 'info', USAGE_ROLLUP_EVERY_MS: '1000', ...env });
}

async function until(what: string, probe: () => Promise<boolean> | boolean, timeoutMs: number, pollMs = 100): Promise<void> {
  const start = Date.now();
  while (!(await probe())) {
    if (Date.now() - start > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(pollMs);
  }
}

/** A fingerprint of a set of rows given as lines: the same lines in any order give the same fingerprint. */
function fingerprint(lines: string[]): { rows: number; sha: string } {
  return { rows: lines.length, sha: createHash('sha256').update([...lines].sort().join('\n')).digest('hex') };
}

describe('the worker rolls up usage', () => {
  let prisma: PrismaClient;
  let redis: Redis;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    await recreateDatabase(databaseUrl);
    prisma = createPrismaClient(databaseUrl, { poolSize: 2 });
    redis = new Redis(redisUrl);
    await redis.flushdb();
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    redis?.disconnect();
    await prisma?.$disconnect();
  });

  it('leaves the same rows as a clean run when it is killed midway and started again', async () => {
    const [seconds] = await redis.time();
    const now = minuteOf(Number(seconds) * 1000);
    const minutes = Array.from({ length: 12 }, (_, i) => now - (15 - i) * 60);
    const tenants = Array.from({ length: 1500 }, () => randomUUID());
    const policies = [randomUUID(), randomUUID(), null];
    // What the rows must be: minutes, hours and (UTC: none of these tenants is in the tenants table) days.
    const expected = { minute: new Map<string, number[]>(), hour: new Map<string, number[]>(), day: new Map<string, number[]>() };
    const add = (map: Map<string, number[]>, key: string, decisions: number, cost: number) => {
      const sum = map.get(key) ?? [0, 0];
      map.set(key, [sum[0]! + decisions, sum[1]! + cost]);
    };
    let n = 0;
    for (const minute of minutes) {
      const pipeline = redis.pipeline();
      for (const tenant of tenants) {
        const key = usageKey(tenant, minute);
        for (const policy of policies) {
          n += 1;
          const allowed = 1 + (n % 7);
          const denied = n % 3;
          pipeline.hincrby(key, countField(policy, 'allowed', ''), allowed);
          pipeline.hincrby(key, costField(policy, 'allowed', ''), allowed * 2);
          if (denied > 0) pipeline.hincrby(key, countField(policy, 'denied', 'daily'), denied);
          const rows: [string, string, number, number][] = [['allowed', '', allowed, allowed * 2]];
          if (denied > 0) rows.push(['denied', 'daily', denied, 0]);
          for (const [result, reason, decisions, cost] of rows) {
            const rest = `${tenant}|${policy}|${result}|${reason}`;
            add(expected.minute, `${minute}|${rest}`, decisions, cost);
            add(expected.hour, `${Math.floor(minute / 3600) * 3600}|${rest}`, decisions, cost);
            add(expected.day, `${new Date(minute * 1000).toISOString().slice(0, 10)}|${rest}`, decisions, cost);
          }
        }
        pipeline.expire(key, USAGE_KEY_TTL_S);
        pipeline.sadd(activeTenantsKey(minute), tenant);
      }
      await pipeline.exec();
    }
    await redis.set(ROLLED_KEY, String(minutes[0]! - 60));
    const lastMinute = minutes.at(-1)!;
    const rolled = async () => Number(await redis.get(ROLLED_KEY));

    // Killed once it has rolled up at least one minute and before it reached the last.
    const first = worker();
    workers.push(first);
    await until('the first minute rolled up', async () => (await rolled()) >= minutes[0]!, 60_000, 20);
    await first.stop('SIGKILL');
    const killedAt = await rolled();
    expect(killedAt, `the worker rolled up every minute before it was killed: make each minute slower\n${first.logs()}`).toBeLessThan(lastMinute);

    const second = worker();
    workers.push(second);
    // The killed worker's job holds the queue's one slot until BullMQ finds it stalled (about 30 s).
    await until('every minute rolled up after the restart', async () => (await rolled()) >= lastMinute, 180_000);
    await second.stop();

    const lines = (map: Map<string, number[]>) => [...map].map(([key, [decisions, cost]]) => `${key}|${decisions}|${cost}`);
    const stored = async (table: 'minute' | 'hour' | 'day') => {
      const rows = await prisma.$queryRawUnsafe<{ bucket: string; tenant_id: string; policy_id: string | null; result: string; reason: string; decisions: bigint; cost: bigint }[]>(
        table === 'day'
          ? `SELECT day::text AS bucket, tenant_id::text, policy_id::text, result::text, reason, decisions, cost FROM usage_day`
          : `SELECT extract(epoch FROM bucket)::bigint::text AS bucket, tenant_id::text, policy_id::text, result::text, reason, decisions, cost FROM usage_${table}`,
      );
      return rows.map((r) => `${r.bucket}|${r.tenant_id}|${r.policy_id}|${r.result}|${r.reason}|${r.decisions}|${r.cost}`);
    };
    expect(fingerprint(await stored('minute'))).toEqual(fingerprint(lines(expected.minute)));
    expect(fingerprint(await stored('hour'))).toEqual(fingerprint(lines(expected.hour)));
    expect(fingerprint(await stored('day'))).toEqual(fingerprint(lines(expected.day)));
  }, 300_000);

  it('has one scheduler of each job however many workers start together', async () => {
    await redis.flushdb();
    // Runs an hour apart: the first run of each, and the next one waiting, are all there is to see.
    const env = { USAGE_ROLLUP_EVERY_MS: '3600000' };
    const started = [worker(env), worker(env), worker(env)];
    workers.push(...started);
    for (const worker of started) await until('a worker started', () => worker.logs().includes('worker started'), 60_000);
    const queue = new Queue('usage', { connection: { url: redisUrl }, prefix: '{tollgate}' });
    try {
      const schedulers = await queue.getJobSchedulers();
      expect(schedulers.map((s) => s.key).sort()).toEqual(['usage-retention', 'usage-rollup']);
      for (const name of ['usage-rollup', 'usage-retention']) {
        await until(`the first ${name} run done`, async () => (await queue.getJobs(['completed'])).some((j) => j.name === name), 60_000);
        const jobs = await queue.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized']);
        const states = await Promise.all(jobs.filter((j) => j.name === name).map((j) => j.getState()));
        expect(states.sort()).toEqual(['completed', 'delayed']);
      }
    } finally {
      await queue.close();
      await Promise.all(started.map((w) => w.stop()));
    }
  }, 120_000);

  it('refuses to start on a Redis that evicts keys, and says what to set', async () => {
    const evicting = await startRedisServer('tollgate-usage-lru');
    try {
      const client = new Redis(evicting.url);
      await client.config('SET', 'maxmemory-policy', 'allkeys-lru');
      client.disconnect();
      const error = await runNode(['apps/worker/dist/main.js'], { DATABASE_URL: databaseUrl, REDIS_URL: evicting.url, NODE_ENV: 'production' }).then(
        () => null,
        (err: Error & { code: number }) => err,
      );
      expect(error?.code).toBe(1);
      const lines = error!.message.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('maxmemory-policy is allkeys-lru; set it to noeviction');
    } finally {
      await evicting.stop();
    }
  });

  it('starts with a warning on a Redis that does not allow CONFIG, as managed services do', async () => {
    // A redis-server of this test's own without the CONFIG command.
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-usage-noconfig-'));
    const started = spawnSync('redis-server', [
      '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'yes',
      '--logfile', join(dir, 'redis.log'), '--rename-command', 'CONFIG', '',
    ]);
    expect(started.status).toBe(0);
    const running = worker({}, `redis://127.0.0.1:${port}`);
    try {
      await until('the worker started', () => running.logs().includes('worker started'), 60_000);
      expect(running.logs()).toContain("could not read Redis's maxmemory-policy");
      expect(running.process.exitCode).toBeNull();
    } finally {
      await running.stop();
      spawnSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave']);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
