/**
 * A bounded map: at most `maxEntries` entries (the least recently used go first) and each entry gone at
 * its expiry time, on the caller's clock. Built on `Map`'s insertion order: a read moves an entry to the end.
 */
export class ExpiringLru<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(private readonly maxEntries: number) {
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) throw new RangeError('maxEntries must be a positive integer');
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= now) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Stores `value` until `now + ttlMs`; a TTL of 0 or less deletes the key. */
  set(key: string, value: V, ttlMs: number, now: number): void {
    this.entries.delete(key);
    if (ttlMs <= 0) return;
    this.entries.set(key, { value, expiresAt: now + ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  /** Ms until `key` expires, or undefined when it is not stored (for tests and diagnostics). */
  ttl(key: string, now: number): number | undefined {
    const entry = this.entries.get(key);
    return entry && entry.expiresAt > now ? entry.expiresAt - now : undefined;
  }
}
