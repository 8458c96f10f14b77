import { Injectable, type PipeTransform } from '@nestjs/common';
import { ALERT_KINDS, ALERT_STATES, AppError, ErrorCode } from '@tollgate/domain';
import { z } from 'zod';
import { instantQuery } from '../../../common/instant-query';
import { pageSizeQuery } from '../../../common/page-size';

/** The largest id Postgres's `bigint` holds: a cursor past it names no alert. */
const MAX_ID = 9_223_372_036_854_775_807n;

/** An alert's id in a path: anything but an id an alert can have is simply not found. */
@Injectable()
export class AlertIdPipe implements PipeTransform<string, bigint> {
  transform(value: string): bigint {
    if (!/^[1-9][0-9]{0,18}$/.test(value) || BigInt(value) > MAX_ID) throw new AppError(ErrorCode.NOT_FOUND, 'alert not found');
    return BigInt(value);
  }
}

const cursor = z
  .string()
  .regex(/^[1-9][0-9]{0,18}$/, 'must be the nextCursor of a page')
  .transform((s) => BigInt(s))
  .refine((n) => n <= MAX_ID, 'must be the nextCursor of a page')
  .optional();

/** Filters a tenant may use on its own alerts: state, and a range of the time each alert started (`from` inclusive, `to` exclusive). */
const ownFilters = {
  state: z.enum(ALERT_STATES, `must be one of ${ALERT_STATES.join(', ')}`).optional(),
  from: instantQuery.optional(),
  to: instantQuery.optional(),
  ...pageSizeQuery,
  /** The id of the last alert of the previous page (alerts come newest first). */
  cursor,
};

const fromBeforeTo = { message: 'must be before to', path: ['from'] };

export const listAlertsQuery = z
  .strictObject({
    ruleId: z.uuid('must be a rule id').optional(),
    tenantId: z.uuid('must be a tenant id').optional(),
    kind: z.enum(ALERT_KINDS, `must be one of ${ALERT_KINDS.join(', ')}`).optional(),
    ...ownFilters,
  })
  .refine((q) => !q.from || !q.to || q.from < q.to, fromBeforeTo);
export type ListAlertsQuery = z.infer<typeof listAlertsQuery>;

export const listOwnAlertsQuery = z.strictObject(ownFilters).refine((q) => !q.from || !q.to || q.from < q.to, fromBeforeTo);
export type ListOwnAlertsQuery = z.infer<typeof listOwnAlertsQuery>;

export const listAlertRulesQuery = z.strictObject({
  kind: z.enum(ALERT_KINDS, `must be one of ${ALERT_KINDS.join(', ')}`).optional(),
  planId: z.uuid('must be a plan id').optional(),
  tenantId: z.uuid('must be a tenant id').optional(),
});
export type ListAlertRulesQuery = z.infer<typeof listAlertRulesQuery>;
