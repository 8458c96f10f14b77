/** What a redacted value reads as. */
export const REDACTED = '[redacted]';

/** Fields whose text is a secret or stands for one: a key's or a session's hash, a password (hash), a token. */
const SECRET_FIELD = /(hash|secret|password|token)$/i;
/** Text that is a secret whatever its field: a SHA-256 in hex (how keys and sessions are stored), an argon2 hash, a key. */
const SECRET_TEXT = [/^[0-9a-f]{64}$/i, /^\$argon2/, /tg_(?:live|test)_[tso]_[0-9A-Za-z]{32}/];

/**
 * An audit record's `before`/`after` as the audit API shows it: every secret replaced by `[redacted]`. What the
 * use-cases record never holds one (keys and users are recorded as the admin API shows them), but a record is kept
 * forever, and one written by an older version, a script or by hand must not hand out a key's hash years later.
 */
export function redactSecrets(value: unknown, field = ''): unknown {
  if (typeof value === 'string') return SECRET_FIELD.test(field) || SECRET_TEXT.some((re) => re.test(value)) ? REDACTED : value;
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, field));
  if (value !== null && typeof value === 'object') {
    // fromEntries defines own properties: a field named `__proto__` stays a field.
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactSecrets(item, key)]));
  }
  return value;
}
