import { queryText } from '@tollgate/domain';
import { z } from 'zod';
import { instantQuery } from '../../../common/instant-query';
import { pageSizeQuery } from '../../../common/page-size';


/** The largest id Postgres's `bigint` holds: a cursor past it names no row. */
const MAX_ID = 9_223_372_036_854_775_807n;

/**
 * Filters of the audit log, each exact: who (`user:<e-mail>`, `key:<prefix>`), which resource (its type, its id, or
 * both), which action, and a range of time (`from` inclusive, `to` exclusive). A value of the wrong shape is refused
 * rather than matching nothing, so that a typo is not mistaken for an empty log.
 */
export const listAuditQuery = z
  .strictObject({
    actor: queryText(320).min(1, 'must not be empty').optional(),
    entityType: z.string().regex(/^[a-z][a-z_]{0,39}$/, 'must be a resource type such as plan, plan_limit, tenant or api_key').optional(),
    entityId: z.string().regex(/^[A-Za-z0-9-]{1,64}$/, 'must be a resource id (a UUID, or a rule set version)').optional(),
    action: z.string().regex(/^[a-z][a-z_]{0,39}\.[a-z][a-z_]{0,39}$/, 'must be an action such as plan_limit.updated').optional(),
    from: instantQuery.optional(),
    to: instantQuery.optional(),
    ...pageSizeQuery,
    /** The id of the last entry of the previous page (entries come newest first). */
    cursor: z
      .string()
      .regex(/^[1-9][0-9]{0,18}$/, 'must be the nextCursor of a page')
      .transform((s) => BigInt(s))
      .refine((n) => n <= MAX_ID, 'must be the nextCursor of a page')
      .optional(),
  })
  .refine((q) => !q.from || !q.to || q.from < q.to, { message: 'must be before to', path: ['from'] });
export type ListAuditQuery = z.infer<typeof listAuditQuery>;
