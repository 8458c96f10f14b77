import ipaddr from 'ipaddr.js';

/**
 * The subject an IP-scoped policy counts for a client address: an IPv4 address as it is, an IPv4-mapped IPv6
 * address (`::ffff:203.0.113.7`) as the IPv4 address it is, and any other IPv6 address as its /64 network
 * (`2001:db8:1:2::/64`): one host usually holds a whole /64, so counting single IPv6 addresses would give every
 * request a fresh bucket. Null when `address` is not an IP address.
 */
export function ipSubject(address: string): string | null {
  // Dotted quads only: ipaddr.js also reads legacy forms (`203.0.113` = 203.0.0.113), which nobody means.
  const valid = address.includes(':') ? ipaddr.IPv6.isValid(address) : ipaddr.IPv4.isValidFourPartDecimal(address);
  if (!valid) return null;
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  if (ip.kind() === 'ipv4') return ip.toString();
  const parts = (ip as ipaddr.IPv6).parts.slice(0, 4);
  const network = ipaddr.fromByteArray([...parts.flatMap((p) => [p >> 8, p & 0xff]), ...new Array<number>(8).fill(0)]);
  return `${network.toString()}/64`;
}
