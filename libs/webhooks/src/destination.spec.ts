import { describe, expect, it } from 'vitest';
import { DestinationGuard, parseAllowedDestinations, webhookUrlSchema } from './destination';

const guard = (allowed = '', resolve: (host: string) => string[] = () => ['93.184.215.14']) =>
  new DestinationGuard(parseAllowedDestinations(allowed), async (host) => resolve(host).map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));

describe('the destination guard', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::ffff:10.0.0.1', 'private'],
  ])('refuses %s (%s)', (address, range) => {
    expect(guard().permits(address)).toEqual({ ok: false, reason: expect.stringContaining(`is a ${range} address`) });
  });

  it('lets public unicast addresses through, and what the allow-list names', () => {
    expect(guard().permits('93.184.215.14')).toEqual({ ok: true });
    expect(guard().permits('2606:2800:21f:cb07:6820:80da:af6b:8b2c')).toEqual({ ok: true });
    const allowing = guard('127.0.0.1, 10.0.0.0/8, fd00::/8');
    expect(allowing.permits('127.0.0.1')).toEqual({ ok: true });
    expect(allowing.permits('::ffff:127.0.0.1')).toEqual({ ok: true });
    expect(allowing.permits('10.200.0.1')).toEqual({ ok: true });
    expect(allowing.permits('fd00::5')).toEqual({ ok: true });
    expect(allowing.permits('127.0.0.2').ok).toBe(false);
    expect(allowing.permits('192.168.0.1').ok).toBe(false);
  });

  it('checks every address a name resolves to, and answers the one to connect to', async () => {
    expect(await guard('', () => ['93.184.215.14']).check(new URL('https://hooks.example.com/x'))).toEqual({ ok: true, address: '93.184.215.14', family: 4 });
    const mixed = await guard('', () => ['93.184.215.14', '10.0.0.1']).check(new URL('https://hooks.example.com/x'));
    expect(mixed).toEqual({ ok: false, reason: expect.stringContaining('hooks.example.com resolves to 10.0.0.1') });
    expect((await guard().check(new URL('http://[::1]:8080/'))).ok).toBe(false);
    // Numeric host forms are read as the address they are (the URL parser normalises them).
    expect((await guard().check(new URL('http://2130706433/'))).ok).toBe(false);
    expect((await guard().check(new URL('http://0x7f.1/'))).ok).toBe(false);
    const failing = new DestinationGuard([], async () => {
      throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    });
    expect(await failing.check(new URL('https://nowhere.invalid/'))).toEqual({ ok: false, reason: 'nowhere.invalid does not resolve (ENOTFOUND)' });
  });

  it('refuses an allow-list entry that is neither an address nor a range, naming it', () => {
    expect(() => parseAllowedDestinations('127.0.0.1,intranet')).toThrow('"intranet" is not an IP address or CIDR range');
  });
});

describe('an endpoint URL', () => {
  it.each([
    ['ftp://hooks.example.com/', 'must be an http or https URL'],
    ['hooks.example.com/x', 'must be an absolute http or https URL'],
    ['https://user:pass@hooks.example.com/', 'must not contain credentials'],
    ['https://hooks.example.com/a#b', 'must not contain a fragment'],
    ['https://hooks.example.com/a\u0000b', 'must not contain control characters'],
    ['https://hooks.example.com/a b', 'must not contain control characters or spaces'],
    ['https://hooks.example.com/\u001b[31m', 'must not contain control characters'],
    ['https://hooks.example.com/\u202Egnp.exe', 'must not contain invisible or bidirectional formatting characters (U+202E)'],
    ['https://hooks.exa\u200Bmple.com/', 'must not contain invisible or bidirectional formatting characters (U+200B)'],
    [`https://hooks.example.com/${'a'.repeat(2100)}`, 'must be at most 2048 characters'],
  ])('refuses %j', (url, message) => {
    const result = webhookUrlSchema.safeParse(url);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toContain(message);
  });

  it('takes http and https URLs with a port, path and query', () => {
    for (const url of ['https://hooks.example.com/tollgate?x=1', 'http://127.0.0.1:8080/hook']) expect(webhookUrlSchema.safeParse(url).success).toBe(true);
  });
});
