import type { Limit, LimitView } from '@tollgate/domain';

export type { LimitView } from '@tollgate/domain';

/** A limit as the admin API shows it: its fields and nothing else of its row. */
export function toLimitBody(l: Limit): Limit {
  return { name: l.name, windowS: l.windowS, limit: l.limit, algorithm: l.algorithm, burst: l.burst, calendar: l.calendar };
}

/** A limit with its id (plan limits, policy limits). */
export function toLimitView(l: LimitView): LimitView {
  return { id: l.id, ...toLimitBody(l) };
}

/** How a list of limits is ordered: shortest window first, then by name. */
export const limitOrder = [{ windowS: 'asc' as const }, { name: 'asc' as const }];
