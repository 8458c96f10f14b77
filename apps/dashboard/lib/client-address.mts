import type { IncomingMessage } from 'node:http';
import proxyaddr from '@fastify/proxy-addr';
import type { TrustProxy } from '@tollgate/domain';

/** Which hop of a request's path is believed to name the one before it. */
export type TrustFn = (address: string, hop: number) => boolean;

/** `DASHBOARD_TRUST_PROXY` as a function, compiled once (a list of CIDRs is slow to parse per request). */
export function compileTrust(trust: TrustProxy): TrustFn {
  if (trust === false) return () => false;
  return typeof trust === 'function' ? trust : proxyaddr.compile(trust);
}

/**
 * The browser's address for a request to the dashboard's own server: its TCP peer, or, through trusted proxies in
 * front, the nearest address in `X-Forwarded-For` that a trusted hop named. Read by `proxy-addr`, as Fastify reads
 * the API's `TRUST_PROXY`, so the two settings mean the same. Without trusted proxies any `X-Forwarded-For` a client
 * sends is ignored.
 */
export function clientAddressOf(request: IncomingMessage, trust: TrustFn): string {
  return proxyaddr(request, trust);
}
