import { describe, expect, it } from 'vitest';
import { ipSubject } from './client-address';

describe('ipSubject (one bucket per client, not per spoofable detail)', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:cb00:7107', '203.0.113.7'],
    ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:0000:0000:0000:0009', '2001:db8:1:2::/64'],
    ['::1', '::/64'],
  ])('%s → %s', (address, subject) => {
    expect(ipSubject(address)).toBe(subject);
  });

  it('counts every address of one /64 as one client, and another /64 apart', () => {
    expect(ipSubject('2001:db8:1:2::1')).toBe(ipSubject('2001:db8:1:2:ffff::1'));
    expect(ipSubject('2001:db8:1:3::1')).not.toBe(ipSubject('2001:db8:1:2::1'));
  });

  it.each(['', 'localhost', '999.1.1.1', '203.0.113', '2001:db8::g'])('refuses %j', (address) => {
    expect(ipSubject(address)).toBeNull();
  });
});
