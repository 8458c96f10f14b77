interface Entry<V> {
  key: string;
  value: V;
  expiresAt: number;
  /** Neighbours in recency order (`newer` of the newest and `older` of the oldest are null). */
  older: Entry<V> | null;
  newer: Entry<V> | null;
}

/**
 * A bounded map: at most `maxEntries` entries (the least recently used go first) and each entry gone at
 * its expiry time, on the caller's clock. A `Map` finds entries; a doubly linked list keeps them in recency
 * order (a read or write moves an entry to the newest end), so neither re-inserts into the `Map`.
 */
export class ExpiringLru<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private newest: Entry<V> | null = null;
  private oldest: Entry<V> | null = null;

  constructor(private readonly maxEntries: number) {
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) throw new RangeError('maxEntries must be a positive integer');
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.remove(entry);
      return undefined;
    }
    this.touch(entry);
    return entry.value;
  }

  /** Stores `value` until `now + ttlMs`; a TTL of 0 or less deletes the key. */
  set(key: string, value: V, ttlMs: number, now: number): void {
    const entry = this.entries.get(key);
    if (ttlMs <= 0) {
      if (entry) this.remove(entry);
      return;
    }
    if (entry) {
      entry.value = value;
      entry.expiresAt = now + ttlMs;
      this.touch(entry);
      return;
    }
    const added: Entry<V> = { key, value, expiresAt: now + ttlMs, older: this.newest, newer: null };
    if (this.newest) this.newest.newer = added;
    this.newest = added;
    this.oldest ??= added;
    this.entries.set(key, added);
    while (this.entries.size > this.maxEntries && this.oldest) this.remove(this.oldest);
  }

  /** Ms until `key` expires, or undefined when it is not stored (for tests and diagnostics). */
  ttl(key: string, now: number): number | undefined {
    const entry = this.entries.get(key);
    return entry && entry.expiresAt > now ? entry.expiresAt - now : undefined;
  }

  /** Makes `entry` the most recently used. */
  private touch(entry: Entry<V>): void {
    if (entry === this.newest) return;
    this.unlink(entry);
    entry.older = this.newest;
    entry.newer = null;
    if (this.newest) this.newest.newer = entry;
    this.newest = entry;
    this.oldest ??= entry;
  }

  private remove(entry: Entry<V>): void {
    this.unlink(entry);
    this.entries.delete(entry.key);
  }

  private unlink(entry: Entry<V>): void {
    if (entry.older) entry.older.newer = entry.newer;
    else this.oldest = entry.newer;
    if (entry.newer) entry.newer.older = entry.older;
    else this.newest = entry.older;
    entry.older = null;
    entry.newer = null;
  }
}
