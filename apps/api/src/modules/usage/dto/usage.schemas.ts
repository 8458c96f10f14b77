import { slug } from '@tollgate/domain';
import { USAGE_RESULTS, USAGE_ROUTE_ORDERS, USAGE_SUMMARY_BY, USAGE_TOP_BY, USAGE_TOP_METRICS } from '@tollgate/usage';
import { z } from 'zod';
import { withPageSize, withTop } from '../../../common/entry-count';
import { idList } from '../../../common/id-list';
import { instantQuery } from '../../../common/instant-query';

/** The most entries a top-N answers (`?top=`), and the most denial samples one read answers (`?pageSize=`). */
export const MAX_TOP_ENTRIES = 100;
export const MAX_DENIAL_SAMPLES = 200;

/** The range of every usage read: `to` defaults to now, `from` to a day before `to`. */
const range = {
  from: instantQuery.optional(),
  to: instantQuery.optional(),
};

/** A series or a CSV export as an operator asks for it: every filter optional. */
export const usageQuery = z.strictObject({
  ...range,
  tenant: slug.optional(),
  policy: z.uuid('must be a policy id').optional(),
  result: z.enum(USAGE_RESULTS).optional(),
});
export type UsageQuery = z.infer<typeof usageQuery>;

/** The same for a tenant: its own tenant always, so no `tenant` (naming one is refused as an unknown parameter). */
export const ownUsageQuery = usageQuery.omit({ tenant: true });
export type OwnUsageQuery = z.infer<typeof ownUsageQuery>;

export const topQuery = withTop(
  {
    ...range,
    by: z.enum(USAGE_TOP_BY).default('tenants'),
    metric: z.enum(USAGE_TOP_METRICS).default('denied'),
    minDecisions: z.coerce.number().int().min(1).max(1_000_000_000).default(100),
  },
  MAX_TOP_ENTRIES,
  10,
);
export type TopQuery = z.infer<typeof topQuery>;

/** The routes of every tenant, or of one (`tenant`), by 429 rate or by volume. */
const routesFields = {
  ...range,
  order: z.enum(USAGE_ROUTE_ORDERS).default('deny_rate'),
  minDecisions: z.coerce.number().int().min(1).max(1_000_000_000).default(10),
};
export const routesQuery = withTop({ ...routesFields, tenant: slug.optional() }, MAX_TOP_ENTRIES, 10);
export type RoutesQuery = z.infer<typeof routesQuery>;
/** The same for a tenant: its own routes always. */
export const ownRoutesQuery = withTop(routesFields, MAX_TOP_ENTRIES, 10);
export type OwnRoutesQuery = z.infer<typeof ownRoutesQuery>;

export const denialsQuery = withPageSize({ tenant: slug }, MAX_DENIAL_SAMPLES, 50);
export const ownDenialsQuery = withPageSize({}, MAX_DENIAL_SAMPLES, 50);

/** The most subjects a would-deny preview lists. */
export const MAX_WOULD_DENY_SUBJECTS = 200;

export const wouldDenyQuery = withTop({ ...range, policy: z.uuid('must be a policy id') }, MAX_WOULD_DENY_SUBJECTS, 50);
export type WouldDenyQuery = z.infer<typeof wouldDenyQuery>;

/** The most tenants the degraded drill-down lists. */
export const MAX_DEGRADED_TENANTS = 100;

export const degradedQuery = withTop(range, MAX_DEGRADED_TENANTS, 10);
export type DegradedQuery = z.infer<typeof degradedQuery>;

export const summaryQuery = z.strictObject({
  ...range,
  by: z.enum(USAGE_SUMMARY_BY),
  id: idList('a tenant or policy'),
});
export type SummaryQuery = z.infer<typeof summaryQuery>;
