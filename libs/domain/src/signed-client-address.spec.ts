import { describe, expect, it } from 'vitest';
import { CLIENT_ADDRESS_MAX_AGE_MS, signClientAddress, verifyClientAddress } from './signed-client-address';

const SECRET = 'a-secret-shared-by-dashboard-and-api-0123456789';
const NOW = 1_800_000_000_000;

describe('signed client addresses', () => {
  it('gives back the address it signed, IPv4 and IPv6', async () => {
    for (const address of ['203.0.113.7', '2001:db8::7', '::ffff:127.0.0.2']) {
      expect(await verifyClientAddress(SECRET, await signClientAddress(SECRET, address, NOW), NOW)).toEqual({ ok: true, address });
    }
  });

  it('refuses another secret, a changed address or time, and a made-up signature', async () => {
    const signed = await signClientAddress(SECRET, '203.0.113.7', NOW);
    const [version, , issuedAt, signature] = signed.split(';');
    expect(await verifyClientAddress(`${SECRET}x`, signed, NOW)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(await verifyClientAddress(SECRET, [version, '198.51.100.1', issuedAt, signature].join(';'), NOW)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(await verifyClientAddress(SECRET, [version, '203.0.113.7', String(NOW + 1), signature].join(';'), NOW)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(await verifyClientAddress(SECRET, `v1;203.0.113.7;${NOW};${'0'.repeat(64)}`, NOW)).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('refuses a signature older (or newer) than the allowed age', async () => {
    const signed = await signClientAddress(SECRET, '203.0.113.7', NOW);
    expect((await verifyClientAddress(SECRET, signed, NOW + CLIENT_ADDRESS_MAX_AGE_MS)).ok).toBe(true);
    expect(await verifyClientAddress(SECRET, signed, NOW + CLIENT_ADDRESS_MAX_AGE_MS + 1)).toEqual({ ok: false, reason: 'expired' });
    expect(await verifyClientAddress(SECRET, signed, NOW - CLIENT_ADDRESS_MAX_AGE_MS - 1)).toEqual({ ok: false, reason: 'expired' });
  });

  it.each([
    '',
    '203.0.113.7',
    'v2;203.0.113.7;1800000000000;' + '0'.repeat(64),
    'v1;not-an-address;1800000000000;' + '0'.repeat(64),
    'v1;203.0.113.7;soon;' + '0'.repeat(64),
    'v1;203.0.113.7;1800000000000;xyz',
    'v1;203.0.113.7;1800000000000;' + '0'.repeat(64) + ';extra',
  ])('refuses the malformed value %j', async (value) => {
    expect(await verifyClientAddress(SECRET, value, NOW)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('signs only IP addresses', async () => {
    await expect(signClientAddress(SECRET, 'a;b', NOW)).rejects.toThrow(RangeError);
  });
});
