import type { Cluster, Redis } from 'ioredis';
import { countsOf, type KeyCount, keyCountsOf, type RouteCount, routeCountsOf, type UsageCount } from './fields';
import { isStorableCount, storedTenantId } from './ids';
import { activeTenantsKey, COUNTED_KEY, ROLLED_KEY, USAGE_ROLLED_TTL_S, usageKey } from './keys';
import type { UsageWriter } from './store';

/** A single Redis or a Redis Cluster: the rollup sends only single-key commands, so either serves. */
export type UsageRedis = Redis | Cluster;

export interface UsageRollupOptions {
  /** How long after a minute's end its counts may still arrive (the API nodes' flush interval and clock margin). */
  graceS: number;
  /** At most this many minutes per run: a worker that was away catches up over several runs, oldest first. */
  maxMinutesPerRun?: number;
  /** How many tenants' hashes are asked for at once (sent together, answered in one round trip per node). */
  readChunk?: number;
  /**
   * Where the first run starts when nothing was rolled up yet (`ROLLED_KEY` absent: a new installation, or a Redis
   * that lost its data): this many seconds back. Usage hashes live up to 48 hours, but a Redis without a rolled
   * minute has almost always just started empty, and going back two hours keeps that first run short.
   */
  firstRunLookbackS?: number;
  /**
   * Also write the minutes that have not closed yet (the open one, and one still in its grace period), at most this
   * often (ms; 0 or absent: never), so that what reads the store sees the last seconds too. Their rows are absolute
   * like every minute's: the closed minute's rollup later writes the same minute again with its final counts. Such a
   * write is skipped while closed minutes are waiting (the backlog comes first), and after one that took `d` ms the
   * next starts no sooner than `4d` after it: live writes take at most a quarter of the worker's time, however many
   * tenants there are.
   */
  liveEveryMs?: number;
  /** A monotonic clock in ms (default `performance.now`), by which live writes are spaced; tests inject one. */
  monotonicMs?: () => number;
}

/** What one run did: minutes rolled up, tenants' hashes read, rows written, counts left out, the last minute rolled. */
export interface RollupRun {
  minutes: number;
  tenants: number;
  rows: number;
  skipped: number;
  rolledThrough: number | null;
  /** The open minutes written (their counts so far), 0 when none was due. */
  liveMinutes: number;
}

/**
 * Moves a number forward to the one given, never back (`ROLLED_KEY`, `COUNTED_KEY`): two rollups that overlap may
 * finish in any order. KEYS[1] = the key, ARGV[1] = the number. Returns 1 when it moved.
 */
const ADVANCE = `
local current = tonumber(redis.call('GET', KEYS[1]))
local minute = tonumber(ARGV[1])
if current ~= nil and current >= minute then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
return 1`;

/**
 * The rollup of closed minutes from Redis into the usage store (docs/adr/0015-usage-counting-and-rollups.md).
 *
 * Each run reads Redis's clock and rolls up, oldest first, every minute after `ROLLED_KEY` that closed at least
 * `graceS` ago: the tenants listed in the minute's set, each one's hash (one `HGETALL` per tenant, never a
 * multi-key command: on a Redis Cluster the hashes are in different slots), written through the `UsageWriter`; then
 * the hashes and the set are given `USAGE_ROLLED_TTL_S`, and `ROLLED_KEY` is moved forward. A run stopped anywhere
 * leaves `ROLLED_KEY` before the minute it was writing, and the next run reads the same hashes and writes the same
 * absolute rows. Overlapping runs (two workers) write the same rows too; the writer takes one minute at a time.
 *
 * A tenant listed in the set whose hash is absent (expired once rolled up, so a minute read again more than
 * `USAGE_ROLLED_TTL_S` later) is left as it is in the store: its rows were written from that hash, and an empty read
 * must not erase them.
 */
export class UsageRollup {
  private readonly maxMinutes: number;
  private readonly readChunk: number;
  private readonly lookbackS: number;
  private readonly liveEveryMs: number;
  private readonly monotonicMs: () => number;
  /** When the run that made the last live write started (`monotonicMs`), and how long that write took. */
  private lastLive = { runAt: Number.NEGATIVE_INFINITY, tookMs: 0 };

  constructor(
    private readonly redis: UsageRedis,
    private readonly writer: UsageWriter,
    private readonly options: UsageRollupOptions,
  ) {
    this.maxMinutes = options.maxMinutesPerRun ?? 30;
    this.readChunk = options.readChunk ?? 500;
    this.lookbackS = options.firstRunLookbackS ?? 2 * 3600;
    this.liveEveryMs = options.liveEveryMs ?? 0;
    this.monotonicMs = options.monotonicMs ?? (() => performance.now());
  }

  async run(): Promise<RollupRun> {
    const runAt = this.monotonicMs();
    const [seconds, micros] = await this.redis.time();
    const now = Number(seconds);
    const nowMs = now * 1000 + Math.floor(Number(micros) / 1000);
    // The last minute that has closed, grace included: m + 60 + grace <= now.
    const lastClosed = Math.floor((now - 60 - this.options.graceS) / 60) * 60;
    const rolled = Number((await this.redis.get(ROLLED_KEY)) ?? Number.NaN);
    const first = Number.isSafeInteger(rolled) && rolled % 60 === 0 ? rolled + 60 : Math.floor((now - this.lookbackS) / 60) * 60;

    const run: RollupRun = { minutes: 0, tenants: 0, rows: 0, skipped: 0, rolledThrough: null, liveMinutes: 0 };
    let minute = first;
    for (; minute <= lastClosed && run.minutes < this.maxMinutes; minute += 60) {
      const read = await this.readMinute(minute);
      await this.writer.writeMinute(minute, read.counts, read.keyCounts, read.routeCounts);
      await this.markRolled(read.keys);
      await this.redis.eval(ADVANCE, 1, ROLLED_KEY, String(minute));
      run.minutes += 1;
      run.tenants += read.counts.size;
      run.rows += read.rows;
      run.skipped += read.skipped;
      run.rolledThrough = minute;
    }
    if (minute > lastClosed && this.liveDue(runAt)) run.liveMinutes = await this.writeLive(runAt, minute, Math.floor(now / 60) * 60);
    // Every count made before the run's clock reading is in the store when the open minutes were written (their hashes
    // were read after it); otherwise up to the end of the last minute rolled up.
    const counted = run.liveMinutes > 0 ? nowMs : run.rolledThrough === null ? null : (run.rolledThrough + 60) * 1000;
    if (counted !== null) await this.redis.eval(ADVANCE, 1, COUNTED_KEY, String(counted));
    return run;
  }

  /**
   * Whether a run that started at `runAt` writes the open minutes: `liveEveryMs` (or four times the last live write's
   * duration, whichever is longer) after the start of the run that made the last one, less a tenth. Measured from runs'
   * starts, not from when the writes began: a run that first rolled a closed minute up began its live write seconds
   * late, and the next tick would otherwise find it too recent and skip, leaving the open minute twice as old. The
   * tenth is for the scheduler: its ticks come every USAGE_ROLLUP_EVERY_MS give or take the queue's own delays, and a
   * tick a few milliseconds early must not wait for the next one.
   */
  private liveDue(runAt: number): boolean {
    if (this.liveEveryMs <= 0) return false;
    return runAt - this.lastLive.runAt >= 0.9 * Math.max(this.liveEveryMs, 4 * this.lastLive.tookMs);
  }

  /**
   * Writes the minutes from `from` to `to` (those not closed yet) with their counts so far, leaving them to be rolled
   * up when they close (`ROLLED_KEY` does not move, their keys keep their TTL). Should a closed minute's rollup have
   * written one of them in the meantime (another worker's run, while this one was slower than the grace period), the
   * minute is read and written again: the last write of a closed minute is always from its complete hash.
   */
  private async writeLive(runAt: number, from: number, to: number): Promise<number> {
    const started = this.monotonicMs();
    let written = 0;
    for (let minute = from; minute <= to; minute += 60) {
      const read = await this.readMinute(minute);
      await this.writer.writeMinute(minute, read.counts, read.keyCounts, read.routeCounts);
      const rolled = Number((await this.redis.get(ROLLED_KEY)) ?? Number.NaN);
      if (rolled >= minute) {
        const again = await this.readMinute(minute);
        await this.writer.writeMinute(minute, again.counts, again.keyCounts, again.routeCounts);
      }
      written += 1;
    }
    this.lastLive = { runAt, tookMs: this.monotonicMs() - started };
    return written;
  }

  /** The counts of every tenant listed for the minute, and the keys that were read (the set and each hash). */
  private async readMinute(
    minute: number,
  ): Promise<{ counts: Map<string, UsageCount[]>; keyCounts: Map<string, Map<string, KeyCount>>; routeCounts: Map<string, RouteCount[]>; keys: string[]; rows: number; skipped: number }> {
    const setKey = activeTenantsKey(minute);
    const listed = await this.redis.smembers(setKey);
    const counts = new Map<string, UsageCount[]>();
    const keyCounts = new Map<string, Map<string, KeyCount>>();
    const routeCounts = new Map<string, RouteCount[]>();
    const keys = [setKey];
    let rows = 0;
    let skipped = 0;
    const tenants = listed.filter((tenant) => {
      const storable = storedTenantId(tenant) !== undefined;
      if (!storable) skipped += 1;
      return storable;
    });
    for (let i = 0; i < tenants.length; i += this.readChunk) {
      const chunk = tenants.slice(i, i + this.readChunk);
      const hashes = await Promise.all(chunk.map((tenant) => this.redis.hgetall(usageKey(tenant, minute))));
      chunk.forEach((tenant, j) => {
        const hash = hashes[j]!;
        if (Object.keys(hash).length === 0) return;
        const all = countsOf(hash);
        const storable = all.filter(isStorableCount);
        skipped += all.length - storable.length;
        rows += storable.length;
        counts.set(tenant, storable);
        keyCounts.set(tenant, keyCountsOf(hash));
        routeCounts.set(tenant, routeCountsOf(hash));
        keys.push(usageKey(tenant, minute));
      });
    }
    return { counts, keyCounts, routeCounts, keys, rows, skipped };
  }

  /** The minute's keys live `USAGE_ROLLED_TTL_S` more: long enough for a run that stopped midway to read them again. */
  private async markRolled(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += this.readChunk) {
      await Promise.all(keys.slice(i, i + this.readChunk).map((key) => this.redis.expire(key, USAGE_ROLLED_TTL_S)));
    }
  }
}
