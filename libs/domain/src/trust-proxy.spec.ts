import { describe, expect, it } from 'vitest';
import { parseTrustProxy, trustProxySchema } from './trust-proxy';

describe('trust proxy settings', () => {
  it('trusts nobody by default, a hop count next to the server, or a list of addresses/CIDRs', () => {
    expect(parseTrustProxy(trustProxySchema.parse(undefined))).toBe(false);
    expect(parseTrustProxy('0')).toBe(false);
    const oneHop = parseTrustProxy('1');
    expect(typeof oneHop === 'function' && [oneHop('10.0.0.1', 0), oneHop('10.0.0.1', 1)]).toEqual([true, false]);
    expect(parseTrustProxy('10.0.0.0/8, 127.0.0.1')).toEqual(['10.0.0.0/8', '127.0.0.1']);
  });

  it('refuses "all" and anything that is neither a count nor addresses', () => {
    for (const value of ['true', 'all', '*', 'proxy.local']) expect(trustProxySchema.safeParse(value).success).toBe(false);
  });
});
