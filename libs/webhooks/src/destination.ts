import { lookup as dnsLookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { formatCharacterMessage, hasFormatCharacter } from '@tollgate/domain';
import { z } from 'zod';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Address, number];

// eslint-disable-next-line no-control-regex -- refusing control characters (and spaces) in a URL is the point
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f-\u009f]/;

/**
 * A webhook endpoint's URL: http or https, at most 2,048 characters, no credentials (`user:pass@` would be sent to
 * whoever the host is and shown in every list), no fragment (never sent), no control characters or spaces, no invisible or
 * bidirectional formatting characters (a U+202E would make the URL read as another wherever it is listed).
 * Where it resolves to is checked separately (DestinationGuard), at creation and at every delivery.
 */
export const webhookUrlSchema = z
  .string()
  .max(2048, 'must be at most 2048 characters')
  .refine((s) => !CONTROL_OR_SPACE.test(s), 'must not contain control characters or spaces')
  .refine((s) => !hasFormatCharacter(s), { error: (issue) => formatCharacterMessage(String(issue.input)) })
  .superRefine((s, ctx) => {
    let url: URL;
    try {
      url = new URL(s);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute http or https URL' });
      return;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') ctx.addIssue({ code: 'custom', message: 'must be an http or https URL' });
    else if (url.username || url.password) ctx.addIssue({ code: 'custom', message: 'must not contain credentials (user:password@)' });
    else if (url.hash || s.includes('#')) ctx.addIssue({ code: 'custom', message: 'must not contain a fragment (#…)' });
    else if (!url.hostname) ctx.addIssue({ code: 'custom', message: 'must name a host' });
  });

/** Resolves a host name to its addresses (all of them). Injectable: tests answer without DNS. */
export type Resolver = (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** Parses WEBHOOK_ALLOWED_DESTINATIONS: addresses and CIDR ranges, comma-separated. Throws naming the bad entry. */
export function parseAllowedDestinations(value: string): Range[] {
  if (value.trim() === '') return [];
  return value.split(',').map((entry) => {
    const text = entry.trim();
    try {
      if (text.includes('/')) return ipaddr.parseCIDR(text);
      const address = ipaddr.parse(text);
      return [address, address.kind() === 'ipv4' ? 32 : 128] as Range;
    } catch {
      throw new Error(`"${text}" is not an IP address or CIDR range`);
    }
  });
}

/**
 * Where RFC 6052 puts an IPv4 address after a translator's prefix of `length` bits: the next four bytes, skipping byte
 * 8 (the "u" octet, always zero).
 */
const rfc6052Bytes = (length: number): number[] => [0, 1, 2, 3, 4].map((i) => length / 8 + i).filter((i) => i !== 8).slice(0, 4);
const LAST_32 = rfc6052Bytes(96);
const LOCAL_NAT64_LENGTHS = [48, 56, 64, 96];
const pick = (bytes: number[], at: readonly number[]) => at.map((i) => bytes[i]!);
/** Every byte after a translator's prefix that is not the IPv4 address is zero (the u-octet and the suffix). */
const encodedAt = (bytes: number[], length: number) => bytes.every((byte, i) => i < length / 8 || rfc6052Bytes(length).includes(i) || byte === 0);

/** The IPv6 forms that carry an IPv4 address, and the bytes of the address(es) each carries. */
const CARRIERS: readonly { name: string; prefix: Range; carried: (bytes: number[]) => number[][] }[] = [
  { name: 'SIIT, IPv4-translated', prefix: ipaddr.parseCIDR('::ffff:0:0:0/96'), carried: (b) => [pick(b, LAST_32)] },
  { name: 'IPv4-compatible', prefix: ipaddr.parseCIDR('::/96'), carried: (b) => [pick(b, LAST_32)] },
  { name: 'NAT64', prefix: ipaddr.parseCIDR('64:ff9b::/96'), carried: (b) => [pick(b, LAST_32)] },
  {
    // A local-use translator's prefix is any RFC 6052 length from /48 on: the lengths the address is a valid encoding
    // for (all of them when none is), every one of which must carry a public address.
    name: 'local-use NAT64',
    prefix: ipaddr.parseCIDR('64:ff9b:1::/48'),
    carried: (b) => {
      const valid = LOCAL_NAT64_LENGTHS.filter((length) => encodedAt(b, length));
      return (valid.length > 0 ? valid : LOCAL_NAT64_LENGTHS).map((length) => pick(b, rfc6052Bytes(length)));
    },
  },
  { name: '6to4', prefix: ipaddr.parseCIDR('2002::/16'), carried: (b) => [pick(b, [2, 3, 4, 5])] },
  // Teredo's client address is its last 32 bits inverted.
  { name: 'Teredo', prefix: ipaddr.parseCIDR('2001::/32'), carried: (b) => [pick(b, LAST_32).map((byte) => ~byte & 0xff)] },
];

/**
 * The IPv4 addresses an IPv6 address carries (SIIT, IPv4-compatible, NAT64, 6to4, Teredo's client), with the form's
 * name; none for other addresses. IPv4-mapped ones are read as the IPv4 address they are (`normalised`); `::` and
 * `::1` are IPv6's own unspecified and loopback addresses, not IPv4-compatible ones.
 */
export function embeddedIPv4(address: ipaddr.IPv6): { form: string; addresses: ipaddr.IPv4[] } | null {
  const carrier = CARRIERS.find(({ prefix: [range, bits] }) => address.match(range, bits));
  if (!carrier || ['unspecified', 'loopback'].includes(address.range())) return null;
  return { form: carrier.name, addresses: carrier.carried(address.toByteArray()).map((bytes) => new ipaddr.IPv4(bytes)) };
}

/** An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) as the IPv4 address it is; others as they are. */
function normalised(address: Address): Address {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
}

export type DestinationCheck = { ok: true; address: string; family: 4 | 6 } | { ok: false; reason: string };

/**
 * Refuses destinations inside the platform's own network (SSRF): a URL whose host resolves to a loopback, private
 * (RFC 1918, fc00::/7), link-local (169.254/16 with the cloud metadata address, fe80::/10), unspecified, CGNAT
 * (100.64/10), multicast, broadcast or otherwise reserved address — the IPv6 forms that carry an IPv4 address included
 * (IPv4-mapped, IPv4-compatible, SIIT, NAT64, 6to4, Teredo: judged by the address they carry) — unless an operator's
 * allow-list (WEBHOOK_ALLOWED_DESTINATIONS) names it. Only public unicast addresses pass. Every address a
 * name resolves to must pass (a name answering one public and one private address is refused), and the delivery
 * connects to the address checked here, so a DNS answer that changes between the check and the connection (DNS
 * rebinding) is never followed.
 */
export class DestinationGuard {
  constructor(
    private readonly allowed: readonly Range[],
    private readonly resolve: Resolver = systemResolver,
  ) {}

  /**
   * Whether `address` may be sent to, and if not, why. An IPv6 address that carries an IPv4 address (see
   * `embeddedIPv4`) is judged by that IPv4 address: `64:ff9b::8.8.8.8` (DNS64) passes, `[::127.0.0.1]` does not.
   */
  permits(text: string): { ok: true } | { ok: false; reason: string } {
    if (!ipaddr.isValid(text)) return { ok: false, reason: `${text} is not an IP address` };
    const address = normalised(ipaddr.parse(text));
    if (this.isAllowed(address)) return { ok: true };
    const carried = address.kind() === 'ipv6' ? embeddedIPv4(address as ipaddr.IPv6) : null;
    if (carried) {
      const refused = carried.addresses.find((inner) => !this.isAllowed(inner) && inner.range() !== 'unicast');
      if (!refused) return { ok: true };
      return { ok: false, reason: `${text} carries ${refused.toString()} (${carried.form}), a ${refused.range()} address (not public); WEBHOOK_ALLOWED_DESTINATIONS may allow it` };
    }
    const range = address.range();
    if (range === 'unicast') return { ok: true };
    return { ok: false, reason: `${text} is a ${range} address (not public); WEBHOOK_ALLOWED_DESTINATIONS may allow it` };
  }

  /** Whether the allow-list names `address` (normalised: an IPv4-mapped range counts as the IPv4 one). */
  private isAllowed(address: Address): boolean {
    return this.allowed.some(([range, bits]) => normalised(range).kind() === address.kind() && address.match(normalised(range), bits));
  }

  /** Resolves the URL's host and checks every address; the answer is the address to connect to. */
  async check(url: URL): Promise<DestinationCheck> {
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    let addresses: { address: string; family: 4 | 6 }[];
    try {
      addresses = ipaddr.isValid(host) ? [{ address: host, family: host.includes(':') ? 6 : 4 }] : await this.resolve(host);
    } catch (err) {
      return { ok: false, reason: `${host} does not resolve (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
    }
    if (addresses.length === 0) return { ok: false, reason: `${host} does not resolve` };
    for (const { address } of addresses) {
      const verdict = this.permits(address);
      if (!verdict.ok) return { ok: false, reason: host === address ? verdict.reason : `${host} resolves to ${verdict.reason}` };
    }
    const first = addresses[0]!;
    return { ok: true, address: first.address, family: first.family };
  }
}
