import { preparingEachCall } from '../prepared-rules';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock';
import { limiterContract } from '../contract.suite';
import { ExpiringLru } from './lru';
import { MemoryEngine } from './memory-engine';

limiterContract({ create: (clock) => new MemoryEngine({ clock }) });

describe('MemoryEngine memory bounds', () => {
  it('keeps at most maxEntries keys, evicting the least recently used', async () => {
    const memory = new MemoryEngine({ clock: new ManualClock(0), maxEntries: 3 });
    const engine = preparingEachCall(memory);
    const rules = [{ name: 'minute', algorithm: 'fixed_window', limit: 1, windowMs: 60_000 }] as const;
    for (const subject of ['a', 'b', 'c', 'd']) await engine.consume({ tenantId: 't', subject, cost: 1, rules });
    expect(memory.size).toBe(3);
    // 'a' was evicted: its budget is back (the documented price of bounded memory); 'd' is still spent.
    expect((await engine.peek({ tenantId: 't', subject: 'a', cost: 1, rules })).allowed).toBe(true);
    expect((await engine.peek({ tenantId: 't', subject: 'd', cost: 1, rules })).allowed).toBe(false);
  });

  it('drops each key when the Redis key would expire', async () => {
    const clock = new ManualClock(0);
    const memory = new MemoryEngine({ clock });
    const engine = preparingEachCall(memory);
    const rules = [{ name: 'bucket', algorithm: 'token_bucket', limit: 1, windowMs: 1000, burst: 5 }] as const;
    await engine.consume({ tenantId: 't', cost: 2, rules });
    expect(memory.size).toBe(1);
    clock.advance(1999);
    await engine.peek({ tenantId: 't', cost: 1, rules });
    expect(memory.size).toBe(1);
    clock.advance(1);
    await engine.peek({ tenantId: 't', cost: 1, rules });
    expect(memory.size).toBe(0);
  });
});

describe('ExpiringLru', () => {
  it('refreshes recency on read, and a TTL of 0 deletes', () => {
    const lru = new ExpiringLru<number>(2);
    lru.set('a', 1, 10, 0);
    lru.set('b', 2, 10, 0);
    expect(lru.get('a', 1)).toBe(1);
    lru.set('c', 3, 10, 1);
    expect([lru.get('a', 2), lru.get('b', 2), lru.get('c', 2)]).toEqual([1, undefined, 3]);
    expect(lru.ttl('c', 5)).toBe(6);
    lru.set('c', 3, 0, 5);
    expect(lru.get('c', 5)).toBeUndefined();
    expect(lru.get('a', 10)).toBeUndefined();
  });

  it('a write makes an entry the most recently used, and eviction takes the least recently used', () => {
    const lru = new ExpiringLru<number>(3);
    for (const key of ['a', 'b', 'c']) lru.set(key, 1, 10, 0);
    lru.set('a', 2, 10, 0); // order now b, c, a
    lru.get('b', 0); // c, a, b
    lru.set('d', 1, 10, 0); // c goes
    expect([lru.get('a', 0), lru.get('b', 0), lru.get('c', 0), lru.get('d', 0)]).toEqual([2, 1, undefined, 1]);
    lru.set('a', 3, 0, 0);
    lru.set('e', 1, 10, 0);
    lru.set('f', 1, 10, 0); // b goes (a was deleted)
    expect(lru.size).toBe(3);
    expect([lru.get('b', 0), lru.get('d', 0), lru.get('e', 0), lru.get('f', 0)]).toEqual([undefined, 1, 1, 1]);
  });
});
