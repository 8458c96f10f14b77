import { z } from 'zod';
import { parseAllowedDestinations } from './destination';
import { parseEncryptionKeys } from './secret-box';

const refineWith = (parse: (value: string) => unknown) =>
  z
    .string()
    .default('')
    .superRefine((value, ctx) => {
      try {
        parse(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
      }
    });

/** The webhook variables the API and the worker both read (the same values on both). */
export const webhookSharedEnv = {
  /**
   * Keys that encrypt endpoints' signing secrets (32 bytes, base64 or hex; the first encrypts, all decrypt). Unset: a
   * key made on first use and kept in Postgres (docs/adr/0017-webhooks.md).
   */
  WEBHOOK_ENCRYPTION_KEYS: refineWith(parseEncryptionKeys),
  /** Addresses and CIDR ranges endpoints may resolve to although not public (`127.0.0.1,10.0.0.0/8`); empty: none. */
  WEBHOOK_ALLOWED_DESTINATIONS: refineWith(parseAllowedDestinations),
};

/** Kept as text in the (frozen) config; parsed where the SecretBox and the DestinationGuard are made. */
export function webhookSharedConfig(e: { WEBHOOK_ENCRYPTION_KEYS: string; WEBHOOK_ALLOWED_DESTINATIONS: string }) {
  return { encryptionKeys: e.WEBHOOK_ENCRYPTION_KEYS, allowedDestinations: e.WEBHOOK_ALLOWED_DESTINATIONS };
}

/** The `email` channel's variables (the worker's only: the API never sends mail). Messages name no password. */
export const emailEnv = {
  /**
   * The SMTP server e-mail endpoints are sent through: `smtp://user:pass@host:587` (STARTTLS when offered) or
   * `smtps://…:465` (TLS). Unset: e-mail endpoints can be made, and their attempts fail ("SMTP_URL is not set").
   */
  SMTP_URL: z
    .string()
    .default('')
    .refine((value) => {
      if (value === '') return true;
      try {
        const url = new URL(value);
        return (url.protocol === 'smtp:' || url.protocol === 'smtps:') && url.hostname !== '';
      } catch {
        return false;
      }
    }, 'must be smtp://[user:password@]host[:port] or smtps://… (or unset)'),
  /** The From of e-mail messages: an address, or `Name <address>`. */
  SMTP_FROM: z
    .string()
    .default('Tollgate <tollgate@localhost.localdomain>')
    // eslint-disable-next-line no-control-regex -- a From with CR or LF would add headers
    .refine((value) => !/[\u0000-\u001f\u007f]/.test(value) && /^(?:[^<>@",;]*<[^<>\s@]+@[^<>\s@]+>|[^<>\s@",;]+@[^<>\s@",;]+)$/.test(value), 'must be one address: name@example.com or Name <name@example.com>'),
};

export function emailConfig(e: { SMTP_URL: string; SMTP_FROM: string }) {
  return { smtpUrl: e.SMTP_URL, smtpFrom: e.SMTP_FROM };
}
