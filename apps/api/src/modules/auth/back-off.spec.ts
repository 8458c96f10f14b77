import { describe, expect, it } from 'vitest';
import { type BackOffPolicy, delayAfter, MemoryBackOff } from './back-off';

const policy: BackOffPolicy = { freeAttempts: 3, baseMs: 1_000, maxMs: 5_000, keepMs: 60_000 };

describe('exponential back-off', () => {
  it('lets the first attempts pass, then doubles the wait after each one up to the longest', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 1000].map((n) => delayAfter(n, policy))).toEqual([0, 0, 1_000, 2_000, 4_000, 5_000, 5_000, 5_000]);
  });

  it('refuses an attempt during the wait, counts the next after it, and starts over after a success or a quiet spell', async () => {
    let now = 1_000_000;
    const store = new MemoryBackOff(100, () => now);
    const attempts = [];
    for (let i = 0; i < 3; i += 1) attempts.push(await store.attempt('a', policy));
    expect(attempts).toEqual([{ allowed: true, delayMs: 0 }, { allowed: true, delayMs: 0 }, { allowed: true, delayMs: 1_000 }]);
    now += 400;
    expect(await store.attempt('a', policy)).toEqual({ allowed: false, retryAfterMs: 600 });
    expect(await store.attempt('b', policy)).toEqual({ allowed: true, delayMs: 0 }); // another subject is not held up
    now += 600;
    expect(await store.attempt('a', policy)).toEqual({ allowed: true, delayMs: 2_000 });
    await store.forgive('a');
    expect(await store.attempt('a', policy)).toEqual({ allowed: true, delayMs: 0 });
    for (let i = 0; i < 2; i += 1) await store.attempt('a', policy);
    now += 1_000 + policy.keepMs;
    expect(await store.attempt('a', policy)).toEqual({ allowed: true, delayMs: 0 });
  });
});
