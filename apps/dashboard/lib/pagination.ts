/** A page's query string as Next hands it to the page. */
export type SearchParams = Record<string, string | string[] | undefined>;

/** What Next hands a page whose query it reads (a list's filters and cursors). */
export interface SearchPageProps {
  searchParams: Promise<SearchParams>;
}

/** The cursors of the pages before this one (`?after=a&after=b`), oldest first: the last one produced this page. */
export function cursorTrail(params: SearchParams, param = 'after'): string[] {
  const value = params[param];
  return (Array.isArray(value) ? value : value ? [value] : []).filter(Boolean);
}

/** A list page's query: its parameters, its filter as `parse` reads them, and the trail of cursors before this page. */
export async function listQuery<F>(searchParams: Promise<SearchParams>, parse: (params: SearchParams) => F): Promise<{ params: SearchParams; filter: F; trail: string[] }> {
  const params = await searchParams;
  return { params, filter: parse(params), trail: cursorTrail(params) };
}

/** The page's query without its cursors (its filters): what the pagination links keep. */
export function filterQuery(params: SearchParams, param = 'after'): URLSearchParams {
  return new URLSearchParams(Object.entries(params).filter((entry): entry is [string, string] => entry[0] !== param && typeof entry[1] === 'string' && entry[1] !== ''));
}

/** `path` with the filters of `query`, if any. */
export function withQuery(path: string, query: URLSearchParams): string {
  return query.size > 0 ? `${path}?${query}` : path;
}

/**
 * A list route's query: its page size, the filters that are set (in their order), then the cursor the previous page
 * answered with.
 */
export function pageQuery(pageSize: number, cursor: string | undefined, filter: object = {}): URLSearchParams {
  const query = new URLSearchParams({ pageSize: String(pageSize) });
  for (const [name, value] of Object.entries(filter)) if (typeof value === 'string' && value !== '') query.set(name, value);
  if (cursor) query.set('cursor', cursor);
  return query;
}

/** The most items a list that follows every page loads (pickers, the plans page): 25 API pages of 200. */
export const MAX_LISTED = 5_000;

/**
 * Every item of a paginated API list, page after page (`fetchPage(cursor)`), up to `max`: pickers must offer every
 * tenant or plan, not only the first page's. `truncated` says that more exist than were loaded.
 */
export async function allPages<T>(
  fetchPage: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>,
  max = MAX_LISTED,
): Promise<{ items: T[]; truncated: boolean }> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    items.push(...page.items);
    if (page.nextCursor === null) return { items, truncated: false };
    if (items.length >= max) return { items: items.slice(0, max), truncated: true };
    cursor = page.nextCursor;
  }
}
