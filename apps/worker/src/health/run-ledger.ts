import type { RedisClient } from '@tollgate/nest-infra';

/** When a scheduled job last completed and last failed (epoch ms), on any worker of the installation. */
export interface JobRuns {
  completedAt: number | null;
  failedAt: number | null;
}

type Outcome = 'completed' | 'failed';

/**
 * Sets a field of a hash to a time unless it holds a later one: workers write in any order, the latest run stays.
 * KEYS[1] = the hash, ARGV[1] = the field, ARGV[2] = the time (epoch ms). Returns 1 when it wrote.
 */
const KEEP_LATEST = `
local held = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if tonumber(ARGV[2]) <= held then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1`;
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
    this.redis.eval(KEEP_LATEST, 1, this.key, field, String(at)).catch(() => undefined);
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
