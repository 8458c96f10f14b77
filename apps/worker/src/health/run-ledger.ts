import { join } from 'node:path';
import { LuaScript } from '@tollgate/lua-script';
import type { RedisClient } from '@tollgate/nest-infra';

/** When a scheduled job last completed and last failed (epoch ms), on any worker of the installation. */
export interface JobRuns {
  completedAt: number | null;
  failedAt: number | null;
}

type Outcome = 'completed' | 'failed';

/** Sets a field of the ledger's hash to a run's time unless it holds a later one (lua/keep-latest.lua). */
const keepLatest = LuaScript.load(join(__dirname, 'lua'), 'keep-latest');
const OUTCOMES: readonly Outcome[] = ['completed', 'failed'];

/**
 * The last run of each scheduled job, as every worker sees it: a job runs on whichever worker takes it, so each worker
 * writes its runs into one Redis hash (`<prefix>:worker-runs`, field `<queue>/<job>/<outcome>`) and reads the others'
 * from it. What this process saw stays in its memory too, so a Redis that lost the hash does not erase it.
 */
export class RunLedger {
  private readonly runs = new Map<string, number>();

  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
  ) {}

  /** A job of this worker ended; written to Redis in the background (a lost write is the next run's to make). */
  record(queue: string, job: string, outcome: Outcome, at = Date.now()): void {
    const field = `${queue}/${job}/${outcome}`;
    this.keep(field, at);
    keepLatest.run(this.redis, [this.key], [field, String(at)]).catch(() => undefined);
  }

  /** Takes in the runs other workers wrote. Throws when Redis does not answer. */
  async refresh(): Promise<void> {
    const stored = await this.redis.hgetall(this.key);
    for (const [field, value] of Object.entries(stored)) {
      const at = Number(value);
      if (Number.isSafeInteger(at)) this.keep(field, at);
    }
  }

  of(queue: string, job: string): JobRuns {
    const [completedAt, failedAt] = OUTCOMES.map((outcome) => this.runs.get(`${queue}/${job}/${outcome}`) ?? null);
    return { completedAt: completedAt ?? null, failedAt: failedAt ?? null };
  }

  private keep(field: string, at: number): void {
    if (at > (this.runs.get(field) ?? 0)) this.runs.set(field, at);
  }
}
