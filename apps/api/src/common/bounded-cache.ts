/**
 * A Map with string keys that cannot outgrow two bounds: a number of entries and the total length of its keys.
 * When a new entry would pass either, everything is forgotten at once: cheaper than tracking recency, and the caches
 * that use it hold answers that are cheap to compute again. Keys built from request input (paths with ids in them)
 * can be many and long; a bound on entries alone let 50,000 keys of a few KB each take hundreds of MB.
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, V>();
  private chars = 0;

  constructor(
    readonly maxEntries: number,
    /** The most UTF-16 code units of all keys together (as many bytes for the one-byte strings of ASCII keys). */
    readonly maxKeyChars: number,
  ) {}

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: V): void {
    if (this.entries.has(key)) {
      this.entries.set(key, value);
      return;
    }
    if (key.length > this.maxKeyChars) return;
    if (this.entries.size >= this.maxEntries || this.chars + key.length > this.maxKeyChars) this.clear();
    // A copy, not the key as given: a key built from a slice of a larger string (a path cut from a header that also
    // held a long query) can keep all of that string alive in V8, whatever its own length, and the bound would not
    // hold. Only new keys are copied, and only when they are not yet remembered.
    this.entries.set(detached(key), value);
    this.chars += key.length;
  }

  clear(): void {
    this.entries.clear();
    this.chars = 0;
  }

  /** How many entries, and how many characters of keys, are held now. */
  get size(): { entries: number; keyChars: number } {
    return { entries: this.entries.size, keyChars: this.chars };
  }
}

/** The same string in memory of its own (UTF-16 round trip: exact for every JavaScript string, lone surrogates too). */
function detached(value: string): string {
  return Buffer.from(value, 'utf16le').toString('utf16le');
}
