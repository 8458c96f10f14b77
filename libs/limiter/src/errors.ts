import { AppError, ErrorCode } from '@tollgate/domain';

/** A cost no window or bucket of this rule could ever admit: refused instead of making the caller wait forever. */
export class CostExceedsCapacityError extends AppError {
  constructor(
    readonly ruleName: string,
    readonly capacity: number,
    readonly cost: number,
    field: 'cost' | 'max' = 'cost',
  ) {
    super(ErrorCode.COST_EXCEEDS_CAPACITY, `${field} ${cost} exceeds the capacity ${capacity} of limit "${ruleName}"`, field);
    this.name = 'CostExceedsCapacityError';
  }
}

export type InvalidRuleReason =
  | 'bad_name'
  | 'duplicate_name'
  | 'unknown_algorithm'
  | 'not_positive_integer'
  | 'too_large'
  | 'loses_precision'
  | 'bad_calendar'
  | 'bad_regions';

/** A rule the engine cannot run exactly; refused before any state is read or written. */
export class InvalidRuleError extends AppError {
  constructor(
    readonly ruleName: string,
    readonly reason: InvalidRuleReason,
    detail: string,
    field: string,
  ) {
    super(ErrorCode.RULE_SET_INVALID, `limit "${ruleName}": ${detail}`, field);
    this.name = 'InvalidRuleError';
  }
}

/** A request the engine refuses before touching any state (bad cost, bad lease size, missing tenant). */
export class InvalidLimitRequestError extends AppError {
  constructor(detail: string, field: string) {
    super(ErrorCode.VALIDATION_FAILED, detail, field);
    this.name = 'InvalidLimitRequestError';
  }
}

/** A shaper delays requests instead of handing out units up front, so it cannot grant a lease. */
export class LeaseNotSupportedError extends AppError {
  constructor(readonly ruleName: string) {
    super(ErrorCode.VALIDATION_FAILED, `limit "${ruleName}" is a leaky bucket shaper, which cannot grant a lease`, 'rules');
    this.name = 'LeaseNotSupportedError';
  }
}

/**
 * Redis had not answered a decision's script call by its deadline (`RedisEngineOptions.deadlineMs`), or the call ran
 * after its expiry and did nothing. One per decision: whoever answers the request instead says, in the same turn of
 * the event loop, whether the client was shown 'allowed' (`answered`). Should Redis's reply still come, the engine
 * takes back what the call counted into usage and gives back what it charged unless the client was shown 'allowed'
 * (docs/adr/0021-one-request-one-decision.md).
 */
export class DeadlineExceeded extends Error {
  private shownAllowed = false;

  constructor(readonly ms: number) {
    super(`Redis did not answer within ${ms} ms`);
    this.name = 'DeadlineExceeded';
  }

  /** The answer the client got instead of Redis's: `allowed` keeps what a late reply charged. */
  answered(allowed: boolean): void {
    this.shownAllowed = allowed;
  }

  /** Whether the client was shown 'allowed' (the charge of a late reply then stays). */
  get answeredAllowed(): boolean {
    return this.shownAllowed;
  }
}

/**
 * Redis decided a `replicaAck` decision, but fewer replicas than asked acknowledged its writes within the timeout: a
 * failover could forget it. Handled as a late reply (`DeadlineExceeded`): whoever answers instead says how
 * (`answered`), and what the call counted is taken back, what it charged given back unless the client was shown
 * 'allowed'.
 */
export class ReplicaAckMissing extends DeadlineExceeded {
  constructor(
    readonly replicas: number,
    readonly acknowledged: number,
    readonly timeoutMs: number,
  ) {
    super(timeoutMs);
    this.message = `${acknowledged} of ${replicas} replicas acknowledged the decision's writes within ${timeoutMs} ms`;
    this.name = 'ReplicaAckMissing';
  }
}
