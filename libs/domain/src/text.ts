import { z } from 'zod';

export const MAX_TEXT_BYTES = 256;
/**
 * Control characters: C0, DEL and C1 (Unicode's `Cc`). Postgres refuses NUL in text outright, and the others
 * (ESC sequences, bells, backspaces) repaint the terminals and log viewers that show a name.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point: they are refused
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Invisible and bidirectional formatting characters (Unicode's `Cf`): U+202E and the other bidi overrides and isolates
 * (U+202A–202E, U+2066–2069) make a name read as something else wherever it is shown ("Trojan Source"); zero-width
 * spaces (U+200B), word joiners (U+2060), U+FEFF, soft hyphens and the tag characters (U+E0000–E007F, invisible text)
 * let two names that look the same differ, or carry text nobody sees. The zero-width joiner and non-joiner
 * (U+200D, U+200C) are how emoji sequences (👩‍💻) and several scripts (Persian, Hindi) are written: they are kept, but
 * only between two visible characters, never at an end, beside a space or doubled, where they would be padding.
 */
const FORMAT_CHARS = /(?![\u200c\u200d])\p{Cf}|(?:^|[\s\u200c\u200d])[\u200c\u200d]|[\u200c\u200d](?=$|\s)/u;
const REPLACED_ALL = new RegExp(`${CONTROL_CHARS.source}|\\p{Cf}`, 'gu');

/** Printable ASCII only: no formatting character can be in it (every check's endpoint, usually). */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Whether `text` holds an invisible or bidirectional formatting character a name must not (see FORMAT_CHARS). */
export function hasFormatCharacter(text: string): boolean {
  return !PRINTABLE_ASCII.test(text) && FORMAT_CHARS.test(text);
}

/**
 * `text` with every control and formatting character (`Cc`, `Cf`) replaced by `?`: for what is kept or shown rather
 * than refused (another system's ids).
 */
export function replaceControlCharacters(text: string): string {
  return text.replace(REPLACED_ALL, '?');
}

/** Half of a surrogate pair without its other half: not text, and stored as U+FFFD (a silent change). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const encoder = new TextEncoder();

const NO_CONTROL_CHARACTERS = 'must not contain control characters';
const NO_LONE_SURROGATES = 'must be well-formed Unicode (no lone surrogate)';

/** The refusal of a formatting character, naming the first one (`U+202E`): it cannot be seen in the text itself. */
export function formatCharacterMessage(text: string): string {
  const found = FORMAT_CHARS.exec(text)?.[0].match(/[\u200c\u200d]|\p{Cf}/u)?.[0] ?? '';
  const code = `U+${(found.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
  return `must not contain invisible or bidirectional formatting characters (${code}${found === '\u200c' || found === '\u200d' ? ' at an end, beside a space or doubled' : ''})`;
}

/**
 * Why `text` is not plain text — a control character, a formatting character, a lone surrogate, in that order — or
 * null when it is. Printable ASCII (every check's endpoint and subject, usually) is answered by one test.
 */
function textProblem(text: string): string | null {
  if (PRINTABLE_ASCII.test(text)) return null;
  if (CONTROL_CHARS.test(text)) return NO_CONTROL_CHARACTERS;
  if (FORMAT_CHARS.test(text)) return formatCharacterMessage(text);
  if (LONE_SURROGATE.test(text)) return NO_LONE_SURROGATES;
  return null;
}

/** The refinement every free-text input shares (names, filters, cursors, check endpoints and subjects): one, for speed. */
function plain(schema: z.ZodString): z.ZodString {
  return schema.refine((s) => textProblem(s) === null, { error: (issue) => textProblem(String(issue.input)) ?? undefined });
}

/** A non-empty string of at most 256 UTF-8 bytes without control or formatting characters (endpoints, subjects). */
export const safeText = plain(
  z
    .string()
    .min(1, 'must not be empty')
    // A UTF-16 unit is at most 3 UTF-8 bytes: short strings (every check's endpoint and subject, usually) need no encoding.
    .refine((s) => s.length * 3 <= MAX_TEXT_BYTES || encoder.encode(s).length <= MAX_TEXT_BYTES, `must be at most ${MAX_TEXT_BYTES} bytes`),
);

/**
 * A name or other free text of the admin API (plan, tenant, key and user names; the list filters `q`): trimmed,
 * 1 to `max` characters, no control characters, no invisible or bidirectional formatting characters.
 */
export function freeText(max = 100): z.ZodString {
  return plain(z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`));
}

/** A query value taken as it is (a cursor holding a name or an e-mail): at most `max` characters, no control or formatting characters. */
export function queryText(max: number): z.ZodString {
  return plain(z.string().max(max, `must be at most ${max} characters`));
}

/** Lower-case identifiers used in URLs and rule sets (`acme`, `starter`). */
export const slug = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be 1-63 lower-case letters, digits or dashes');

/**
 * One e-mail address, as a recipient of Tollgate's messages (an e-mail endpoint): zod's e-mail pattern (ASCII, a
 * dotted domain), so no display name, no list, no quotes or brackets, no spaces and no control characters — nothing
 * that could add a header or a second recipient. Checked in that order so the answer says what is wrong.
 */
export const emailAddress = z
  .string()
  .max(254, 'must be at most 254 characters')
  .refine((s) => !CONTROL_CHARS.test(s), 'must not contain control characters (no header injection)')
  .refine((s) => !/[\s,;<>"()[\]\\]/.test(s), 'must be one address alone: no spaces, name, list or brackets')
  .refine((s) => z.regexes.email.test(s), 'must be an e-mail address such as alerts@example.com');
