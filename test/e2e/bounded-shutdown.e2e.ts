import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { startRedisServer } from '../../scripts/lib/redis-server.mjs';
import { waitFor } from '../support/fixtures';
import { startApiProcesses, startWorker } from '../support/stack';
import { TEST_DATABASE_URL } from '../support/env';
import { proxiedDatabase, startTcpProxy, type TcpProxy } from '../support/tcp-proxy';

/** The bound the apps are given here (SHUTDOWN_TIMEOUT_MS). */
const BOUND_MS = 4_000;
/**
 * How long past the bound this file waits for an exit before it calls the process hung (and SIGKILLs it): a machine
 * shared with other test runs may be slow to schedule the exit, but a process that ignores the bound never exits.
 */
const SLACK_MS = 20_000;

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  hung: boolean;
}

/** Sends `signal` and waits for the exit; a process still running after BOUND_MS + SLACK_MS is SIGKILLed, and `hung`. */
async function terminate(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<Exit> {
  expect(child.exitCode, 'the process was running').toBeNull();
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, sig) => resolve({ code, signal: sig, hung: false })));
  child.kill(signal);
  let hung = false;
  const timer = setTimeout(() => {
    hung = true;
    child.kill('SIGKILL');
  }, BOUND_MS + SLACK_MS);
  const exit = await exited;
  clearTimeout(timer);
  return { ...exit, hung };
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

/**
 * A redis-server of the test's own, proxies in front of it and of the test database, and the worker and an API node
 * connected through them.
 */
async function startApps() {
  const redis = await startRedisServer('tollgate-bounded-shutdown');
  cleanups.push(redis.stop);
  const proxy: TcpProxy = await startTcpProxy({ host: '127.0.0.1', port: redis.port });
  cleanups.push(proxy.close);
  const postgres = await proxiedDatabase(TEST_DATABASE_URL);
  cleanups.push(postgres.proxy.close);
  const redisUrl = `redis://127.0.0.1:${proxy.port}`;
  const env = { REDIS_URL: redisUrl, DATABASE_URL: postgres.databaseUrl, SHUTDOWN_TIMEOUT_MS: String(BOUND_MS), LOG_LEVEL: 'info' };
  const worker = startWorker({ ...env, USAGE_ROLLUP_EVERY_MS: '1000', ALERTS_EVALUATE_EVERY_MS: '1000', WEBHOOK_DISPATCH_EVERY_MS: '200' });
  cleanups.push(() => worker.stop('SIGKILL'));
  const api = await startApiProcesses(1, env);
  cleanups.push(api.stop);
  await waitFor(() => worker.logs().includes('worker started'), 60_000, 100);
  return { redis, proxy, postgresProxy: postgres.proxy, worker, api };
}

describe('the worker and the API stop within SHUTDOWN_TIMEOUT_MS whatever Redis and Postgres do', () => {
  it('with Redis down: SIGTERM ends both, cleanly, leaving the jobs to be retried', async () => {
    const { redis, worker, api } = await startApps();
    await redis.stop();
    // Both have noticed: the worker's connection is reconnecting, its jobs fail or wait.
    await waitFor(() => /ECONNREFUSED|Connection is closed|cannot check the job schedules/.test(worker.logs() + api.logs()), 30_000, 100);
    const [workerExit, apiExit] = await Promise.all([terminate(worker.process), terminate(api.processes[0]!)]);
    expect(workerExit, worker.logs()).toEqual({ code: 0, signal: null, hung: false });
    expect(apiExit, api.logs()).toEqual({ code: 0, signal: null, hung: false });
    expect(worker.logs()).toMatch(/SIGTERM: shutting down, for at most 4000 ms/);
  }, 120_000);

  it('with Redis blackholed (connections accepted, never answered): SIGTERM ends both within the bound, saying what did not finish', async () => {
    const { proxy, worker, api } = await startApps();
    proxy.blackhole(true);
    // Long enough for the worker to be waiting on Redis: a job's commands, the scheduler's check, the blocking poll.
    await waitFor(() => worker.logs().includes('Redis did not answer within'), 30_000, 100);
    const [workerExit, apiExit] = await Promise.all([terminate(worker.process), terminate(api.processes[0]!)]);
    // The worker's BullMQ close waits on Redis for half the bound, then its connections are cut and it ends cleanly.
    expect(workerExit, worker.logs()).toEqual({ code: 0, signal: null, hung: false });
    expect(worker.logs()).toMatch(/jobs still running after 2000 ms: cutting the Redis connections/);
    expect(apiExit, api.logs()).toEqual({ code: 0, signal: null, hung: false });
  }, 120_000);

  it('with Postgres blackholed: SIGTERM ends both at the bound, with code 70 and a line naming what did not finish', async () => {
    const { postgresProxy, worker, api } = await startApps();
    postgresProxy.blackhole(true);
    // Queries in flight that Postgres never answers: the API's health probe, the worker's jobs (rollup every second).
    const probe = fetch(`${api.urls[0]}/health`).catch(() => null);
    await waitFor(async () => (await probe)?.status === 503, 30_000, 100);
    const [workerExit, apiExit] = await Promise.all([terminate(worker.process), terminate(api.processes[0]!)]);
    for (const [exit, logs] of [[workerExit, worker.logs()], [apiExit, api.logs()]] as const) {
      expect(exit, logs).toEqual({ code: 70, signal: null, hung: false });
      expect(logs).toMatch(/shutdown did not finish within 4000 ms \(SHUTDOWN_TIMEOUT_MS\): exiting \(code 70\); not finished: [^\n]*(Postgres disconnect|BullMQ worker of)/);
    }
  }, 120_000);
});
