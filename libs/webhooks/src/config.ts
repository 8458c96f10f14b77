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
