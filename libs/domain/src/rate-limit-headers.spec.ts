import fc from 'fast-check';
import { parseList, serializeList } from 'structured-headers';
import { describe, expect, it } from 'vitest';
import { decimal, mostRestrictive, type NamedItemOf, namedList, rateLimitHeaders } from './rate-limit-headers';

const minute = { name: 'minute', limit: 10, remaining: 0, resetMs: 20_500, windowS: 60 };
const daily = { name: 'daily', limit: 1000, remaining: 990, resetMs: 3_600_000, windowS: 86_400 };
const nowMs = 1_800_000_000_000;

describe('rateLimitHeaders', () => {
  it('rounds Retry-After up to whole seconds (20.5 s is 21) and never below 1', () => {
    expect(rateLimitHeaders([minute, daily], { allowed: false, retryAfterMs: 20_500, nowMs })['Retry-After']).toBe('21');
    expect(rateLimitHeaders([minute], { allowed: false, retryAfterMs: 1, nowMs })['Retry-After']).toBe('1');
    expect(rateLimitHeaders([minute], { allowed: false, retryAfterMs: 2_000, nowMs })['Retry-After']).toBe('2');
  });

  it('sends no Retry-After on an allowed decision', () => {
    expect(rateLimitHeaders([daily], { allowed: true, retryAfterMs: 0, nowMs })).not.toHaveProperty('Retry-After');
  });

  it('describes the most restrictive limit in X-RateLimit-*, with Reset in epoch seconds', () => {
    const h = rateLimitHeaders([daily, minute], { allowed: false, retryAfterMs: 20_500, nowMs });
    expect(h['X-RateLimit-Limit']).toBe('10');
    expect(h['X-RateLimit-Remaining']).toBe('0');
    expect(h['X-RateLimit-Reset']).toBe(String(Math.ceil((nowMs + 20_500) / 1000)));
  });

  it('emits the IETF RateLimit-Policy and RateLimit fields as structured lists, one named item per limit', () => {
    const h = rateLimitHeaders([minute, daily], { allowed: false, retryAfterMs: 20_500, nowMs });
    const policy = parseList(h['RateLimit-Policy']!);
    expect(policy.map(([name, params]) => [name, Object.fromEntries(params)])).toEqual([
      ['minute', { q: 10, w: 60 }],
      ['daily', { q: 1000, w: 86_400 }],
    ]);
    const state = parseList(h['RateLimit']!);
    expect(state.map(([name, params]) => [name, Object.fromEntries(params)])).toEqual([
      ['minute', { r: 0, t: 21 }],
      ['daily', { r: 990, t: 3600 }],
    ]);
  });

  it('picks, among equally tight limits, the one that resets last', () => {
    expect(mostRestrictive([{ ...daily, remaining: 0 }, minute])?.name).toBe('daily');
    expect(mostRestrictive([])).toBeUndefined();
  });
});

describe('decimal', () => {
  it('writes an integer exactly as String() does, up to the largest Structured Fields integer', () => {
    fc.assert(
      fc.property(fc.integer({ min: -999_999_999_999_999, max: 999_999_999_999_999 }), (n) => {
        expect(decimal(n)).toBe(String(n));
      }),
      { numRuns: 1000 },
    );
    expect([0, -0, 1, 999_999_999_999_999].map(decimal)).toEqual(['0', '0', '1', '999999999999999']);
  });
});

describe('namedList', () => {
  type Item = [name: string, value1: number, value2: number];
  const itemOf = (key1: string, key2: string): NamedItemOf<Item> => ({ name: (i) => i[0], key1, value1: (i) => i[1], key2, value2: (i) => i[2] });

  it('writes exactly what the structured-headers library writes, for any names and integers', () => {
    const item = fc.tuple(fc.string({ maxLength: 20 }), fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 0, max: 2 ** 40 }));
    const keys = fc.constantFrom(['q', 'w'], ['r', 't']);
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 5 }), keys, (items, [a, b]) => {
        const library = serializeList(items.map(([n, x, y]) => [n, new Map<string, number>([[a!, x], [b!, y]])]));
        expect(namedList(items, itemOf(a!, b!))).toBe(library);
      }),
      { numRuns: 500 },
    );
  });

  it('escapes quotes and backslashes through the library', () => {
    expect(namedList([['a"b\\c', 1, 2]], itemOf('q', 'w'))).toBe('"a\\"b\\\\c";q=1;w=2');
  });
});
