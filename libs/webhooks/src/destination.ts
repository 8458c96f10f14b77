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

/** An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) as the IPv4 address it is; others as they are. */
function normalised(address: Address): Address {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
}

export type DestinationCheck = { ok: true; address: string; family: 4 | 6 } | { ok: false; reason: string };

/**
 * Refuses destinations inside the platform's own network (SSRF): a URL whose host resolves to a loopback, private
 * (RFC 1918, fc00::/7), link-local (169.254/16 with the cloud metadata address, fe80::/10), unspecified, CGNAT
 * (100.64/10), multicast, broadcast or otherwise reserved address — IPv4-mapped IPv6 forms included — unless an
 * operator's allow-list (WEBHOOK_ALLOWED_DESTINATIONS) names it. Only public unicast addresses pass. Every address a
 * name resolves to must pass (a name answering one public and one private address is refused), and the delivery
 * connects to the address checked here, so a DNS answer that changes between the check and the connection (DNS
 * rebinding) is never followed.
 */
export class DestinationGuard {
  constructor(
    private readonly allowed: readonly Range[],
    private readonly resolve: Resolver = systemResolver,
  ) {}

  /** Whether `address` may be sent to, and if not, why. */
  permits(text: string): { ok: true } | { ok: false; reason: string } {
    if (!ipaddr.isValid(text)) return { ok: false, reason: `${text} is not an IP address` };
    const address = normalised(ipaddr.parse(text));
    if (this.allowed.some(([range, bits]) => normalised(range).kind() === address.kind() && address.match(normalised(range), bits))) return { ok: true };
    const range = address.range();
    if (range === 'unicast') return { ok: true };
    return { ok: false, reason: `${text} is a ${range} address (not public); WEBHOOK_ALLOWED_DESTINATIONS may allow it` };
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
