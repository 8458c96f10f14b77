import { createHash, randomBytes } from 'node:crypto';
import { secretHash } from '@tollgate/db';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 32;
const CHECKSUM_LENGTH = 6;

export type KeyKind = 'tenant' | 'service' | 'operator';
const KIND_CODE: Record<KeyKind, string> = { tenant: 't', service: 's', operator: 'o' };

/**
 * Tollgate keys: `tg_<live|test>_<kind letter>_<32 random base62>_<6 base62 checksum>` — recognisable in logs and
 * by secret scanners, with a checksum that lets a typo be refused without a lookup. Only the SHA-256 of the
 * whole key is stored; the first 14 characters (`tg_live_s_Ab12`) are kept as a display prefix.
 */
export function generateKey(kind: KeyKind, environment: 'live' | 'test' = 'live'): { key: string; prefix: string; hash: string } {
  let secret = '';
  while (secret.length < SECRET_LENGTH) {
    // Rejection sampling: bytes ≥ 248 would make the first 8 characters likelier than the rest.
    for (const b of randomBytes(SECRET_LENGTH)) if (b < 248 && secret.length < SECRET_LENGTH) secret += ALPHABET[b % 62];
  }
  const body = `tg_${environment}_${KIND_CODE[kind]}_${secret}`;
  const key = `${body}_${checksum(body)}`;
  return { key, prefix: displayPrefix(key), hash: secretHash(key) };
}

/** True when the key has Tollgate's shape and its checksum matches (says nothing about whether it exists). */
export function hasValidChecksum(key: string): boolean {
  const match = /^(tg_(?:live|test)_[tso]_[0-9A-Za-z]{32})_([0-9A-Za-z]{6})$/.exec(key);
  return match !== null && checksum(match[1]!) === match[2];
}

export function displayPrefix(key: string): string {
  return key.slice(0, 14);
}

function checksum(body: string): string {
  let n = createHash('sha256').update(body).digest().readUIntBE(0, 6);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i += 1) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}
