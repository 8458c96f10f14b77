import { ExpiringLru } from '../memory/lru';

/** A sample replaces a lower one once that is this old: a failover's new primary may keep another clock. */
const SAMPLE_WINDOW_MS = 2_000;
/** An estimate not refreshed for this long is dropped (the tenant's calls carry no expiry until the next reply). */
const ESTIMATE_TTL_MS = 60_000;
/** Hash tags whose estimate is kept (one per tenant: on a Redis Cluster each tag's slot has its primary's clock). */
const MAX_TAGS = 10_000;

/**
 * Where Redis's clock stands against this process's monotonic clock (`performance.now()`), per tenant hash tag, so
 * that a script call can carry an expiry on Redis's clock (ARGV[4] of lua/limit.lua). Learnt from the Redis time
 * every reply carries: a call ran after it was sent, so `redis now - sent at` is never below the true offset, and the
 * lowest recent sample is the tightest such bound. An expiry computed from it is therefore never earlier than meant
 * (a call in time is never refused); it is later by at most that sample's wait before Redis ran it.
 */
export class RedisClock {
  private readonly offsets = new ExpiringLru<{ offset: number; at: number }>(MAX_TAGS);

  /** Redis ran a call of `tag`, sent at `sentAt` (performance.now()), at `redisNow` (ms of its TIME). */
  learn(tag: string, sentAt: number, redisNow: number, now = performance.now()): void {
    const sample = redisNow - sentAt;
    const held = this.offsets.get(tag, now);
    if (held && sample > held.offset && now - held.at < SAMPLE_WINDOW_MS) return;
    this.offsets.set(tag, { offset: sample, at: now }, ESTIMATE_TTL_MS, now);
  }

  /** Redis's time (integer ms) `afterMs` after `sentAt` on this process's clock, or undefined without an estimate. */
  redisTime(tag: string, sentAt: number, afterMs: number, now = performance.now()): number | undefined {
    const held = this.offsets.get(tag, now);
    return held === undefined ? undefined : Math.ceil(sentAt + held.offset + afterMs);
  }
}
