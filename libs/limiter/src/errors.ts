import { AppError, ErrorCode, type LimitSpec } from '@tollgate/domain';

/** A cost no window of this limit could ever admit: refuse it instead of making the caller wait forever. */
export class CostExceedsCapacityError extends AppError {
  constructor(readonly limit: LimitSpec, readonly cost: number) {
    super(
      ErrorCode.COST_EXCEEDS_CAPACITY,
      `cost ${cost} exceeds the capacity ${limit.limit} of limit "${limit.name}"`,
      'cost',
    );
  }
}

export function assertCostFits(limits: readonly LimitSpec[], cost: number): void {
  for (const limit of limits) if (cost > limit.limit) throw new CostExceedsCapacityError(limit, cost);
}
