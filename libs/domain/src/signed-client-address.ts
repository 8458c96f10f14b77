import { ipSubject } from './client-address';

/**
 * The browser's address as the dashboard saw it, signed, so that the API can throttle sign-ins per browser
 * although every one of them reaches the API from the dashboard's server. A header anyone can set (such as
 * `X-Forwarded-For`) would let a client pick its own bucket; this one is believed only with a valid HMAC-SHA256
 * of a secret that the dashboard and the API share (`CLIENT_ADDRESS_SECRET`) and only for a minute.
 *
 *   x-tollgate-client-address: v1;<address>;<issued at, epoch ms>;<hex HMAC-SHA256 of "v1;<address>;<issued at>">
 *
 * Web Crypto (not node:crypto) keeps @tollgate/domain free of Node-only modules.
 */
export const CLIENT_ADDRESS_HEADER = 'x-tollgate-client-address';
/** A signature is believed this long after (or, for clocks that differ, before) it was made. */
export const CLIENT_ADDRESS_MAX_AGE_MS = 60_000;
/** The shortest shared secret accepted (random, e.g. `openssl rand -hex 32`). */
export const CLIENT_ADDRESS_SECRET_MIN_LENGTH = 32;

const VERSION = 'v1';

export type ClientAddressVerdict = { ok: true; address: string } | { ok: false; reason: 'malformed' | 'expired' | 'bad_signature' };

/** The header value for `address` (an IP address), signed with `secret` at `nowMs`. */
export async function signClientAddress(secret: string, address: string, nowMs: number = Date.now()): Promise<string> {
  if (ipSubject(address) === null) throw new RangeError('not an IP address');
  const payload = `${VERSION};${address};${Math.floor(nowMs)}`;
  const signature = await crypto.subtle.sign('HMAC', await keyOf(secret), encoder.encode(payload));
  return `${payload};${toHex(new Uint8Array(signature))}`;
}

/** The address in `value` if `secret` signed it less than `CLIENT_ADDRESS_MAX_AGE_MS` from `nowMs`. */
export async function verifyClientAddress(secret: string, value: string, nowMs: number = Date.now()): Promise<ClientAddressVerdict> {
  const parts = value.split(';');
  const [version, address, issuedAt, signature] = parts;
  if (parts.length !== 4 || version !== VERSION || !address || !issuedAt || !signature) return { ok: false, reason: 'malformed' };
  if (!/^\d{1,16}$/.test(issuedAt) || !/^[0-9a-f]{64}$/.test(signature) || ipSubject(address) === null) return { ok: false, reason: 'malformed' };
  const signed = await crypto.subtle.verify('HMAC', await keyOf(secret), fromHex(signature), encoder.encode(`${version};${address};${issuedAt}`));
  if (!signed) return { ok: false, reason: 'bad_signature' };
  if (Math.abs(nowMs - Number(issuedAt)) > CLIENT_ADDRESS_MAX_AGE_MS) return { ok: false, reason: 'expired' };
  return { ok: true, address };
}

const encoder = new TextEncoder();
/** Web Crypto's key type, named the same with or without the DOM library. */
type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;
/** One imported key per secret (a process has one or two). */
const keys = new Map<string, Promise<HmacKey>>();

function keyOf(secret: string): Promise<HmacKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    keys.set(secret, key);
  }
  return key;
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function fromHex(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}
