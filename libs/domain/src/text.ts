import { z } from 'zod';

export const MAX_TEXT_BYTES = 256;
// eslint-disable-next-line no-control-regex -- matching control characters is the point: they are refused
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
const encoder = new TextEncoder();

/** A non-empty string of at most 256 UTF-8 bytes without control characters (endpoints, subjects). */
export const safeText = z
  .string()
  .min(1, 'must not be empty')
  // A UTF-16 unit is at most 3 UTF-8 bytes: short strings (every check's endpoint and subject, usually) need no encoding.
  .refine((s) => s.length * 3 <= MAX_TEXT_BYTES || encoder.encode(s).length <= MAX_TEXT_BYTES, `must be at most ${MAX_TEXT_BYTES} bytes`)
  .refine((s) => !CONTROL_CHARS.test(s), 'must not contain control characters');

/** Lower-case identifiers used in URLs and rule sets (`acme`, `starter`). */
export const slug = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be 1-63 lower-case letters, digits or dashes');
