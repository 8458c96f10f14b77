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
