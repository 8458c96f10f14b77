import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import type { LimitRule } from '../contract';
import { clusterSlotOf, hashTagOf, ruleKey, subjectHash, tenantTag } from './keys';

describe('limiter keys', () => {
  const rule: LimitRule = { name: 'minute', algorithm: 'token_bucket', limit: 100, windowMs: 60_000 };

  it('names a key tg:{tenant tag}:algorithm[unit]:rule:subject hash', () => {
    const key = ruleKey('tenant-1', rule, 'user-42');
    // 100 per 60,000 ms: a token is 600 parts, one part flows in per ms.
    expect(key).toBe(`tg:{${tenantTag('tenant-1')}}:tb600:minute:${subjectHash('user-42')}`);
    expect(key).toMatch(/^tg:\{[A-Za-z0-9_-]{10}\}:tb600:minute:[A-Za-z0-9_-]{12}$/);
    expect(ruleKey('tenant-1', rule, undefined)).toMatch(/:tb600:minute:-$/);
    expect(ruleKey('tenant-1', { ...rule, algorithm: 'fixed_window' }, undefined)).toMatch(/:fw:minute:-$/);
  });

  it('gives a bucket a new key when its unit changes, and keeps it when only the burst changes', () => {
    const key = (r: Partial<LimitRule>) => ruleKey('t', { ...rule, ...r }, 's');
    expect(key({ limit: 120 })).toContain(':tb500:');
    expect(key({ limit: 200, windowMs: 120_000 })).toBe(key({}));
    expect(key({ burst: 500 })).toBe(key({}));
  });

  it('hashes subjects, so `{`, `}` and `:` never reach a key name or move its hash tag', () => {
    for (const subject of ['{x}', 'a:b', '}{', 'user:{42}']) {
      const key = ruleKey('t', rule, subject);
      expect(key.split(':')).toHaveLength(5);
      expect(hashTagOf(key)).toBe(tenantTag('t'));
      expect(key).not.toContain(subject);
    }
  });

  it('hashes tenant ids to a stable short tag', () => {
    expect(tenantTag('acme')).toBe(tenantTag('acme'));
    expect(tenantTag('acme')).not.toBe(tenantTag('acme2'));
    expect(ruleKey('{evil}', rule, undefined)).not.toContain('evil');
  });

  it('extracts the hash tag the way Redis Cluster does', () => {
    expect(hashTagOf('tg:{abc}:x:{def}')).toBe('abc');
    expect(hashTagOf('no-tag')).toBeUndefined();
    expect(hashTagOf('x{}y{z}')).toBeUndefined();
    expect(hashTagOf('x{y')).toBeUndefined();
  });

  it('hashes a subject with SHA-256 on every call (72 bits, base64url)', () => {
    const expected = createHash('sha256').update('user-7').digest('base64url').slice(0, 12);
    expect(subjectHash('user-7')).toBe(expected);
    expect(subjectHash(undefined)).toBe('-');
  });

  it('finds a key\'s Redis Cluster slot as CLUSTER KEYSLOT does: its hash tag\'s, else the whole key\'s', () => {
    // Values of Redis 7's CLUSTER KEYSLOT.
    expect(clusterSlotOf('foo')).toBe(12182);
    expect(clusterSlotOf('123456789')).toBe(12739);
    expect(clusterSlotOf('{user1000}.following')).toBe(clusterSlotOf('user1000'));
    expect(clusterSlotOf(ruleKey('tenant-1', rule, 'x'))).toBe(clusterSlotOf(tenantTag('tenant-1')));
  });
});
