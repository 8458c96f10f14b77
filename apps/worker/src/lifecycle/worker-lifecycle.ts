import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { type RedisClient, ShutdownSteps, within } from '@tollgate/nest-infra';
import type { Worker } from 'bullmq';
import { WORKER_CONFIG, type WorkerConfig } from '../config/config';
import { HealthServer } from '../health/health-server';
import { RunLedger } from '../health/run-ledger';
import { type LoopSource, WorkerHealth } from '../health/worker-health';
import { REDIS } from '../infra.module';
import { bullWorkers, type JobProcessor } from './job-processor';
import { ScheduleKeeper } from '../schedules/schedule-keeper';
import { workerSchedules } from '../schedules/job-schedules';

/** BullMQ's connection of this worker's queues and workers (created by WorkerModule, shared by every queue). */
export const BULL_CONNECTION = Symbol('BULL_CONNECTION');
/** What runs each queue's jobs (usage, alerts, webhooks): one BullMQ Worker each, made and closed here. */
export const JOB_PROCESSORS = Symbol('JOB_PROCESSORS');
/** The loops of this worker that are not BullMQ jobs (webhook delivery), watched by its health. */
export const WORKER_LOOPS = Symbol('WORKER_LOOPS');

/**
 * What keeps the worker doing its jobs and what ends it: ScheduleKeeper puts every schedule back in Redis, the ledger
 * and WorkerHealth say on `GET /health` whether the jobs run, and the shutdown closes every BullMQ worker within a
 * bound whatever Redis does (docs/adr/0022-the-worker-keeps-its-schedules.md).
 */
@Injectable()
export class WorkerLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('Worker');
  private readonly plan: ReturnType<typeof workerSchedules>;
  private readonly health: WorkerHealth;
  private readonly ledger: RunLedger;
  private readonly keeper: ScheduleKeeper;
  private readonly server: HealthServer;
  private workers: readonly Worker[] = [];
  private refreshTimer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;
  /** BullMQ errors already logged since Redis was last ready (a Redis away makes each worker fail every second). */
  private readonly reported = new Set<string>();
  /** Redis is ready again: the outage's errors end with one line, and are logged again if they come back. */
  private readonly onReady = () => {
    if (this.reported.size > 0) this.log.log(`Redis is ready again: the ${this.reported.size} BullMQ error(s) logged once since are over`);
    this.reported.clear();
  };

  constructor(
    @Inject(WORKER_CONFIG) private readonly config: WorkerConfig,
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(BULL_CONNECTION) private readonly connection: RedisClient,
    @Inject(JOB_PROCESSORS) private readonly processors: readonly JobProcessor[],
    @Inject(WORKER_LOOPS) loops: readonly LoopSource[],
    private readonly steps: ShutdownSteps,
  ) {
    this.plan = workerSchedules(config);
    this.health = new WorkerHealth(this.plan.schedules, loops.map((l) => l.loop), config.health.missedRuns);
    for (const source of loops) source.onRound((error) => this.health.loopRan(source.loop.name, error));
    this.ledger = new RunLedger(redis, `${config.queues.prefix}:worker-runs`);
    this.keeper = new ScheduleKeeper(connection, this.plan, this.health, { prefix: config.queues.prefix, checkEveryMs: config.schedules.checkEveryMs, log: this.log });
    this.server = new HealthServer(() => this.health.report((queue, job) => this.ledger.of(queue, job)));
  }

  async onApplicationBootstrap(): Promise<void> {
    const listener = this.config.health.listener;
    if (listener) {
      const port = await this.server.listen(listener.host, listener.port);
      this.log.log(`GET /health on ${listener.host}:${port}`);
    }
    const scheduled = new Set(this.plan.schedules.map((s) => s.id));
    this.connection.on('ready', this.onReady);
    this.workers = bullWorkers(this.processors, this.connection, this.config.queues.prefix);
    for (const worker of this.workers) {
      worker.on('error', (err) => this.reportOnce(`BullMQ worker of ${worker.name}: ${err.message}`));
      worker.on('failed', (job, err) => this.log.warn(`job ${job?.name ?? '?'} ${job?.id ?? ''} of ${worker.name} failed: ${err.message.slice(0, 200)}`));
      worker.on('completed', (job) => scheduled.has(job.name) && this.ledger.record(worker.name, job.name, 'completed'));
      worker.on('failed', (job) => job && scheduled.has(job.name) && this.ledger.record(worker.name, job.name, 'failed'));
    }
    await this.keeper.start();
    this.refreshTimer = setInterval(() => void this.refreshRuns(), this.config.schedules.checkEveryMs);
    this.refreshTimer.unref();
  }

  /**
   * Closes every BullMQ worker: with Redis up, each waits for its running jobs, for at most half of
   * SHUTDOWN_TIMEOUT_MS; with Redis away (a job could not report its end anyway) or once that time is up, their Redis
   * connections are cut. A job cut short stays active in Redis, is found stalled and run again (every job is
   * idempotent). Before Nest's own hooks, which would wait on Redis without a bound.
   */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    this.connection.off('ready', this.onReady);
    await this.steps.run('schedule keeper', () => this.keeper.stop());
    await this.steps.run('health listener', () => this.server.close());
    const redisUp = this.connection.status === 'ready' && this.redis.status === 'ready';
    const workers = this.workers;
    const closing = Promise.all(workers.map((w) => this.steps.run(`BullMQ worker of ${w.name}`, () => w.close(!redisUp).catch(() => undefined))));
    const drainMs = Math.floor(this.config.shutdown.timeoutMs / 2);
    if ((await within(closing, drainMs)) === 'timeout') {
      this.log.warn(`jobs still running after ${drainMs} ms: cutting the Redis connections (BullMQ runs them again once found stalled)`);
      for (const w of workers) void w.disconnect().catch(() => undefined);
      this.connection.disconnect();
      this.redis.disconnect();
    }
    await closing;
    this.connection.disconnect();
  }

  /** Logs `message` unless it was logged since Redis was last ready (said again after each reconnection). */
  private reportOnce(message: string): void {
    const line = message.slice(0, 300);
    if (this.reported.has(line)) return;
    this.reported.add(line);
    this.log.warn(`${line} (logged once until Redis is ready again)`);
  }

  /** Takes in the other workers' runs, and notes the jobs and loops falling behind (an incident is kept even if no probe asks). */
  private refreshRuns(): Promise<void> {
    this.refreshing ??= this.ledger
      .refresh()
      .catch(() => undefined) // Redis away: the keeper's check says so; what this worker saw stays
      .then(() => void this.health.report((queue, job) => this.ledger.of(queue, job)))
      .finally(() => (this.refreshing = null));
    return this.refreshing;
  }
}
