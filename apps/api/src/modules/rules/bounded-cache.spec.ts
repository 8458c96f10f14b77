import { describe, expect, it } from 'vitest';
import { BoundedCache } from './enforced-rule-set';

describe('BoundedCache', () => {
  it('remembers values by key', () => {
    const cache = new BoundedCache<number | null>(10, 1000);
    cache.set('a', 1);
    cache.set('b', null);
    expect(cache.get('a')).toBe(1);
    expect(cache.get('b')).toBeNull();
    expect(cache.get('c')).toBeUndefined();
    cache.set('a', 2);
    expect(cache.get('a')).toBe(2);
    expect(cache.size).toEqual({ entries: 2, keyChars: 2 });
  });

  it('never holds more entries than its bound', () => {
    const cache = new BoundedCache<number>(100, 1_000_000);
    for (let i = 0; i < 1000; i += 1) {
      cache.set(`key-${i}`, i);
      expect(cache.size.entries).toBeLessThanOrEqual(100);
    }
    // The newest is always there.
    expect(cache.get('key-999')).toBe(999);
  });

  it('never holds more characters of keys than its bound, however long the keys', () => {
    const cache = new BoundedCache<number>(50_000, 64 * 1024);
    for (let i = 0; i < 2000; i += 1) {
      cache.set(`/${i}/${'a'.repeat(2000)}`, i);
      expect(cache.size.keyChars).toBeLessThanOrEqual(64 * 1024);
    }
    expect(cache.size.entries).toBeGreaterThan(0);
  });

  it('does not remember a key longer than the whole bound', () => {
    const cache = new BoundedCache<number>(10, 100);
    cache.set('short', 1);
    cache.set('x'.repeat(101), 2);
    expect(cache.get('x'.repeat(101))).toBeUndefined();
    expect(cache.get('short')).toBe(1);
  });

  it('finds keys that are not plain ASCII, lone surrogates included', () => {
    const cache = new BoundedCache<number>(10, 100);
    for (const key of ['acme\u0000GET /v1/café', 'acme\u0000GET /\ud83d\ude00', 'acme\u0000GET /\ud800']) {
      cache.set(key, 1);
      expect(cache.get(key)).toBe(1);
    }
  });
});
