/**
 * The caller's text as a literal inside a LIKE pattern: `%`, `_` and `\` escaped with `\` (Postgres's default
 * escape character). Prisma's `contains`/`startsWith`/`endsWith` pass the text into LIKE as it is, so `?q=%`
 * would otherwise match every row.
 */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}

/** A case-insensitive "contains" filter on a text column, the caller's text taken literally. */
export function containsText(text: string): { contains: string; mode: 'insensitive' } {
  return { contains: escapeLike(text), mode: 'insensitive' };
}
