import { describe, expect, it } from 'vitest';
import { secretHash } from '@tollgate/db';
import { displayPrefix, generateKey, hasValidChecksum } from './key-format';

describe('key format', () => {
  it('generates prefixed keys with a checksum, a display prefix and a SHA-256 hash', () => {
    const { key, prefix, hash } = generateKey('service');
    expect(key).toMatch(/^tg_live_s_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}$/);
    expect(prefix).toBe(key.slice(0, 14));
    expect(hash).toBe(secretHash(key));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hasValidChecksum(key)).toBe(true);
    expect(generateKey('tenant', 'test').key).toMatch(/^tg_test_t_/);
    expect(displayPrefix(generateKey('operator').key)).toMatch(/^tg_live_o_/);
  });

  it('refuses a key with one character changed, or of another shape', () => {
    const { key } = generateKey('tenant');
    const i = 15;
    const typo = key.slice(0, i) + (key[i] === 'a' ? 'b' : 'a') + key.slice(i + 1);
    expect(hasValidChecksum(typo)).toBe(false);
    expect(hasValidChecksum(`${key}x`)).toBe(false);
    expect(hasValidChecksum('tg_test_DEMO_ONLY_service_key_not_for_production')).toBe(false);
  });

  it('never repeats', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateKey('service').key));
    expect(keys.size).toBe(1000);
  });
});
