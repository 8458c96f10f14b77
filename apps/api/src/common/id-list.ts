import { PAGE_SIZE } from '@tollgate/domain';
import { z } from 'zod';

/**
 * Ids named by a repeated query parameter (`?id=…&id=…`): the rows of a list page, at most a page of the largest
 * size. One given once is a list of one.
 */
export const idList = (what: string) =>
  z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(z.uuid(`must be ${what} id`)).min(1).max(PAGE_SIZE.max, `at most ${PAGE_SIZE.max} ids at a time`));
