import { replaceControlCharacters } from '@tollgate/domain';
import { type RedisClient, within } from '@tollgate/nest-infra';
import { Queue } from 'bullmq';
import type { WorkerHealth } from '../health/worker-health';
import type { JobSchedule, WorkerSchedules } from './job-schedules';

export interface KeeperLog {
  log(message: string): void;
  warn(message: string): void;
}

/** Why a check runs: the worker starting, its Redis connection (re)established, or the timer. */
export type CheckTrigger = 'start' | 'reconnection' | 'timer';

/**
 * A check Redis has not answered after this long is reported failed. It goes on (BullMQ's connection queues commands
 * while Redis is away and sends them when it is back), and no other starts before it ends: checks never pile up.
 */
export const CHECK_ANSWER_MS = 5_000;

/** What a check put back: the schedules and the queues' settings Redis had lost. */
interface Restored {
  schedules: string[];
  queueSettings: string[];
}

/** An error's message, one line of at most 200 characters (an ioredis or BullMQ error: no secret in it). */
function oneLine(err: unknown): string {
  return replaceControlCharacters(err instanceof Error ? err.message : String(err)).slice(0, 200);
}

/**
 * The one owner of the worker's schedules in Redis (docs/adr/0022-the-worker-keeps-its-schedules.md): every job
 * schedule and each queue's global concurrency, which live in Redis and vanish with it (restarted empty, flushed,
 * failed over to an empty replica). It puts them there when the worker starts, whenever its Redis connection becomes
 * ready again, and every `WORKER_SCHEDULES_CHECK_MS` (a flush leaves the connection up), like RuleSetReconciler keeps
 * the rule set. What it knows lives in the worker's memory and config, so nothing that happens to Redis can stop it.
 * A scheduler is keyed by its id: any number of workers putting the same one back make one schedule.
 */
export class ScheduleKeeper {
  private readonly queues = new Map<string, Queue>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private failing: string | null = null;
  private readonly onReady = () => void this.check('reconnection');

  /** `connection`: BullMQ's connection of this worker (shared with its queues: closed by its owner). */
  constructor(
    private readonly connection: RedisClient,
    private readonly plan: WorkerSchedules,
    private readonly health: WorkerHealth,
    private readonly options: { prefix: string; checkEveryMs: number; log: KeeperLog },
  ) {
    for (const { queue } of plan.queues) {
      // The queue's event stream is capped: nothing reads it for long, and it would otherwise grow to 10,000 entries.
      const q = new Queue(queue, { connection, prefix: options.prefix, streams: { events: { maxLen: 1000 } } });
      q.on('error', () => undefined); // the connection's errors: a failed check says what matters, once
      this.queues.set(queue, q);
    }
  }

  /**
   * Puts every schedule in Redis, then keeps them there. Waits at most CHECK_ANSWER_MS for Redis: a worker starts
   * while Redis is away, and its schedules are put in place as soon as Redis is back.
   */
  async start(): Promise<void> {
    this.connection.on('ready', this.onReady);
    this.timer = setInterval(() => void this.check('timer'), this.options.checkEveryMs);
    this.timer.unref();
    await within(this.check('start'), CHECK_ANSWER_MS);
  }

  /** Stops checking, and lets go of its queues (their connection is not theirs: nothing waits on Redis). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.connection.off('ready', this.onReady);
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }

  /** A check unless one is running (a reconnection during a timer's check does not start a second). */
  check(trigger: CheckTrigger): Promise<void> {
    this.running ??= this.checkNow(trigger).finally(() => (this.running = null));
    return this.running;
  }

  private async checkNow(trigger: CheckTrigger): Promise<void> {
    const work = this.keep(trigger).then(
      (restored) => this.succeeded(trigger, restored),
      (err: unknown) => this.failed(oneLine(err)),
    );
    if ((await within(work, CHECK_ANSWER_MS)) === 'timeout') {
      this.failed(`Redis did not answer within ${CHECK_ANSWER_MS} ms`);
      await work;
    }
  }

  /** Makes Redis hold every queue setting and schedule. At start each is written whatever Redis holds (a new version may have changed an interval or a template). */
  private async keep(trigger: CheckTrigger): Promise<Restored> {
    const everything = trigger === 'start';
    if (everything) for (const { queue, id } of this.plan.retired) await this.queue(queue).removeJobScheduler(id);
    const queueSettings = await this.keepQueueSettings(everything);
    const schedules: string[] = [];
    for (const schedule of this.plan.schedules) if (await this.keepSchedule(schedule, everything)) schedules.push(schedule.id);
    return everything ? { schedules: [], queueSettings: [] } : { schedules, queueSettings };
  }

  private succeeded(trigger: CheckTrigger, restored: Restored): void {
    this.health.checked(restored);
    if (restored.schedules.length + restored.queueSettings.length > 0) {
      const what = [...restored.schedules.map((s) => `schedule ${s}`), ...restored.queueSettings.map((q) => `global concurrency of ${q}`)];
      this.options.log.warn(`put back what Redis had lost (found on ${trigger}): ${what.join(', ')}`);
    }
    if (this.failing !== null) this.options.log.log('the job schedules are checked in Redis again');
    this.failing = null;
  }

  private failed(reason: string): void {
    this.health.checkFailed(reason);
    if (this.failing === null) this.options.log.warn(`cannot check the job schedules in Redis, retrying every ${this.options.checkEveryMs} ms and on reconnection: ${reason}`);
    this.failing = reason;
  }

  /** Sets each queue's global concurrency where it differs (or always); answers the queues where it was missing. */
  private async keepQueueSettings(always: boolean): Promise<string[]> {
    const restored: string[] = [];
    for (const { queue, globalConcurrency } of this.plan.queues) {
      const q = this.queue(queue);
      const current = always ? null : await q.getGlobalConcurrency();
      if (current === globalConcurrency) continue;
      await q.setGlobalConcurrency(globalConcurrency);
      if (!always) restored.push(queue);
    }
    return restored;
  }

  /** Upserts the schedule if Redis lacks it or holds another interval (or always); answers whether it had to. */
  private async keepSchedule(schedule: JobSchedule, always: boolean): Promise<boolean> {
    const q = this.queue(schedule.queue);
    const current = always ? null : await q.getJobScheduler(schedule.id);
    if (current && current.every === schedule.everyMs) return false;
    await q.upsertJobScheduler(schedule.id, { every: schedule.everyMs }, { name: schedule.id, opts: schedule.template });
    return true;
  }

  private queue(name: string): Queue {
    const queue = this.queues.get(name);
    if (!queue) throw new Error(`no queue ${name} for its schedules`);
    return queue;
  }
}
