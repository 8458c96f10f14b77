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

  // Each IPv6 form that carries an IPv4 address, judged by the address it carries (the URL parser writes `[::127.0.0.1]` as `[::7f00:1]`).
  it.each([
    ['::7f00:1', '127.0.0.1', 'IPv4-compatible', 'loopback'],
    ['::a00:1', '10.0.0.1', 'IPv4-compatible', 'private'],
    ['::ffff:0:a9fe:a9fe', '169.254.169.254', 'SIIT, IPv4-translated', 'linkLocal'],
    ['64:ff9b::7f00:1', '127.0.0.1', 'NAT64', 'loopback'],
    ['64:ff9b::a9fe:a9fe', '169.254.169.254', 'NAT64', 'linkLocal'],
    ['64:ff9b:1::c0a8:1', '192.168.0.1', 'local-use NAT64', 'private'],
    // The same prefix of /48 with 127.0.0.1 where a /48 translator puts it (bytes 6-7 and 9-10, the u-octet between).
    ['64:ff9b:1:7f00:0:100::', '127.0.0.1', 'local-use NAT64', 'loopback'],
    ['2002:7f00:1::1', '127.0.0.1', '6to4', 'loopback'],
    ['2002:a00:1::', '10.0.0.1', '6to4', 'private'],
    ['2002:6440:1::1', '100.64.0.1', '6to4', 'carrierGradeNat'],
    // Teredo's client is the last 32 bits inverted: 80ff:fffe is 127.0.0.1, f5ff:fffe 10.0.0.1.
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', '127.0.0.1', 'Teredo', 'loopback'],
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', '10.0.0.1', 'Teredo', 'private'],
  ])('refuses %s: it carries %s (%s, %s)', async (address, inner, form, range) => {
    const reason = `carries ${inner} (${form}), a ${range} address (not public)`;
    expect(guard().permits(address)).toEqual({ ok: false, reason: expect.stringContaining(reason) });
    // Where an endpoint's URL is accepted (the API), as a literal host…
    expect(await guard().check(new URL(`http://[${address}]:8080/hook`))).toEqual({ ok: false, reason: expect.stringContaining(reason) });
    // …and where a name is resolved before connecting (the worker's delivery).
    expect(await guard('', () => [address]).check(new URL('https://hooks.example.com/x'))).toEqual({ ok: false, reason: expect.stringContaining(`hooks.example.com resolves to ${address} ${reason}`) });
  });

  it('lets an IPv6 form through when the IPv4 address it carries is public, or allowed', () => {
    // 93.184.215.14 is 5db8:d70e; DNS64 networks reach IPv4-only receivers through 64:ff9b::/96.
    for (const address of ['64:ff9b::5db8:d70e', '64:ff9b:1::5db8:d70e', '2002:5db8:d70e::1', '2001:0:4136:e378:8000:63bf:a247:28f1', '::5db8:d70e', '::ffff:0:5db8:d70e']) {
      expect(guard().permits(address)).toEqual({ ok: true });
    }
    const allowing = guard('127.0.0.1, 10.0.0.0/8');
    expect(allowing.permits('64:ff9b::7f00:1')).toEqual({ ok: true });
    expect(allowing.permits('2002:a01:203::')).toEqual({ ok: true });
    expect(allowing.permits('64:ff9b::7f00:2').ok).toBe(false);
    // Not every address of the ranges carries one: IPv6's own loopback and unspecified addresses are what they are.
    expect(guard().permits('::1')).toEqual({ ok: false, reason: expect.stringContaining('is a loopback address') });
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
