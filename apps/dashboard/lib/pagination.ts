/** A page's query string as Next hands it to the page. */
export type SearchParams = Record<string, string | string[] | undefined>;

/** The cursors of the pages before this one (`?after=a&after=b`), oldest first: the last one produced this page. */
export function cursorTrail(params: SearchParams, param = 'after'): string[] {
  const value = params[param];
  return (Array.isArray(value) ? value : value ? [value] : []).filter(Boolean);
}

/** The page's query without its cursors (its filters): what the pagination links keep. */
export function filterQuery(params: SearchParams, param = 'after'): URLSearchParams {
  return new URLSearchParams(Object.entries(params).filter((entry): entry is [string, string] => entry[0] !== param && typeof entry[1] === 'string' && entry[1] !== ''));
}

/** `path` with the filters of `query`, if any. */
export function withQuery(path: string, query: URLSearchParams): string {
  return query.size > 0 ? `${path}?${query}` : path;
}
