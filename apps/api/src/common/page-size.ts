import { PAGE_SIZE } from '@tollgate/domain';
import { z } from 'zod';

/**
 * The page size of every list, `?pageSize=` (1 to PAGE_SIZE.max, PAGE_SIZE.default when left out). It was `?limit=`,
 * which also names a limit's count: that name is refused with a 400 naming `pageSize`, never silently ignored.
 */
export const pageSizeQuery = {
  pageSize: z.coerce.number().int().min(1).max(PAGE_SIZE.max).default(PAGE_SIZE.default),
  limit: z.never({ error: `renamed: the page size is pageSize (1 to ${PAGE_SIZE.max}, default ${PAGE_SIZE.default})` }).optional(),
};

/**
 * A page of a list read with `take: pageSize + 1`: the first `pageSize` rows as items (each its `view`), and the cursor
 * of the next page (`cursorOf` the page's last row), null when there was no row more (the last page).
 */
export function pageOfRows<R, V>(rows: R[], pageSize: number, view: (row: R) => V, cursorOf: (last: R) => string): { items: V[]; nextCursor: string | null } {
  const page = rows.slice(0, pageSize);
  const last = page.at(-1);
  return { items: page.map((row) => view(row)), nextCursor: rows.length > pageSize && last !== undefined ? cursorOf(last) : null };
}
