import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';
/** Standard Webhooks allows 24 to 64 bytes; 32 is HMAC-SHA256's block of strength. */
const SECRET_BYTES = 32;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A new signing secret: `whsec_` + base64 of 32 random bytes (the Standard Webhooks form). */
export function generateWebhookSecret(): string {
  return PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The key bytes of a `whsec_…` secret (the base64 after the prefix), as HMAC uses them. */
export function secretKeyBytes(secret: string): Buffer {
  if (!secret.startsWith(PREFIX)) throw new Error('a webhook secret starts with whsec_');
  const bytes = Buffer.from(secret.slice(PREFIX.length), 'base64');
  if (bytes.length < 24 || bytes.length > 64) throw new Error('a webhook secret holds 24 to 64 bytes');
  return bytes;
}

/**
 * The `webhook-signature` header of Standard Webhooks: `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` per
 * secret, space-separated (during a rotation's overlap both the new secret's and the old one's).
 */
export function signatureHeader(id: string, timestampS: number, body: string, secrets: readonly string[]): string {
  const signed = `${id}.${timestampS}.${body}`;
  return secrets.map((secret) => `v1,${createHmac('sha256', secretKeyBytes(secret)).update(signed).digest('base64')}`).join(' ');
}

/** `msg_` + 24 random base62 characters: an event's id, sent as `webhook-id` with every delivery of it. */
export function newEventId(): string {
  let id = '';
  while (id.length < 24) {
    // Rejection sampling: bytes ≥ 248 would make the first 8 characters likelier than the rest.
    for (const b of randomBytes(32)) if (b < 248 && id.length < 24) id += ALPHABET[b % 62];
  }
  return `msg_${id}`;
}
