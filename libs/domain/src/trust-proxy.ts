import { z } from 'zod';

/**
 * Which proxies in front of a server are believed when they name the client in `X-Forwarded-For`: a number of
 * hops (`1` = the one proxy right in front) or a comma-separated list of addresses/CIDRs (`10.0.0.0/8,127.0.0.1`).
 * Empty: none (the TCP peer is the client). Never "all": a client could then name any address it likes. The API's
 * `TRUST_PROXY` and the dashboard's `DASHBOARD_TRUST_PROXY` both read this.
 */
export const trustProxySchema = z
  .string()
  .default('')
  .refine((v) => v === '' || /^\d{1,2}$/.test(v) || v.split(',').every((p) => /^[0-9a-fA-F.:]+(\/\d{1,3})?$/.test(p.trim())), 'a hop count or a list of addresses/CIDRs');

/** A trust setting as Fastify's `trustProxy` and `proxy-addr` take it: false, addresses/CIDRs, or a function of the hop. */
export type TrustProxy = false | string[] | ((address: string, hop: number) => boolean);

/** `trustProxySchema`'s value as a `TrustProxy`; a hop count trusts that many hops next to the server. */
export function parseTrustProxy(value: string): TrustProxy {
  if (value === '') return false;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return hops === 0 ? false : (_address: string, hop: number) => hop < hops;
  }
  return value.split(',').map((p) => p.trim());
}
