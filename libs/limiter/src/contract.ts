/**
 * The limiter's contract, shared by the Redis engine (lua/ + redis/) and the in-memory engine (memory/).
 * Both take the same requests and give the same answers (a contract test suite and property tests hold
 * them to it). Times are epoch milliseconds on the engine's clock: Redis `TIME` in production, an
 * injected `Clock` in tests.
 */

import type { Algorithm, Calendar } from '@tollgate/domain';
import type { PreparedRules } from './prepared-rules';

/** The algorithms are named once, in the domain (plans store them); the engine runs every one of them. */
export { ALGORITHMS } from '@tollgate/domain';
export type AlgorithmName = Algorithm;

/** A window that resets at midnight (day) or on the 1st (month) in an IANA time zone. */
export interface CalendarWindow {
  unit: Calendar;
  timeZone: string;
}

/** One limit as the engine runs it. */
export interface LimitRule {
  /** Unique within a decision; part of the key name. `[a-z][a-z0-9_-]{0,31}`. */
  name: string;
  algorithm: AlgorithmName;
  /** Units per window (window algorithms) or refill/leak rate numerator (bucket algorithms: `limit` per `windowMs`). */
  limit: number;
  /** Window length (window algorithms) or rate denominator (bucket algorithms), in ms. */
  windowMs: number;
  /** Bucket capacity for token/leaky buckets and GCRA (instantaneous burst); defaults to `limit`. */
  burst?: number;
  /** Fixed window only: calendar-aligned in a time zone instead of epoch-aligned (`windowMs` is then ignored). */
  calendar?: CalendarWindow;
  /**
   * Fixed window only (a calendar one too): one quota across `count` regions, each deciding on its own Redis, of which
   * this deployment is region `index` (from 0). The Redis engine admits against the region's allowance for the window
   * (set by the coordinator, docs/adr/0025-one-quota-across-regions.md), or its share of the limit until it has one:
   * limit ÷ count, the remainder to the first regions (`regionShare`). The memory engine admits the share.
   */
  regions?: RegionShare;
}

/** Which of how many regions decides (see `LimitRule.regions`). */
export interface RegionShare {
  index: number;
  count: number;
}

/** A request to decide. Every rule is checked, and charged only if all of them admit it (all or nothing). */
export interface LimitRequest {
  /** The tenant's id: every key of the decision shares its hash tag. */
  tenantId: string;
  /** Who inside the tenant is counted; undefined = the tenant as a whole. Hashed, never stored raw. */
  subject?: string;
  /**
   * Per rule (by index), who that rule counts, instead of `subject`: rules of one decision may count different
   * things (the tenant as a whole, a user, an IP). `undefined` at an index = the tenant as a whole.
   */
  ruleSubjects?: readonly (string | undefined)[];
  /** Positive integer. A cost above a rule's capacity is a `CostExceedsCapacityError`, never a wait. */
  cost: number;
  /** The rules, prepared once (`prepareRules`); `preparingEachCall` takes them as written. */
  rules: PreparedRules;
  /**
   * A consume or a peek: the rules from this index on (from 0) are a policy in shadow mode, decided and reported but
   * never denying. When only they refuse, the request is decided on the rules before them alone (charged there only,
   * allowed), and each of them that would have denied reports its `retryAfterMs` (> 0) in the allowed decision. One
   * decision, atomically (docs/adr/0021-one-request-one-decision.md). Ignored by refund and lease.
   */
  shadowFrom?: number;
  /**
   * The Redis engine counts the decision into usage in the same script call that makes it (see
   * lua/includes/tally.lua): `key` starts the hash's key and must be in the tenant's hash tag (`tenantKeyPrefix`), `text` is
   * made by `tallyText`. The memory engine counts nothing.
   */
  tally?: Tally;
  /**
   * The Redis engine answers only once a replica holds the call's writes (`WAIT`, `RedisEngineOptions.replicaAck`):
   * a failover that promotes it cannot forget what was admitted. Without an acknowledgement in time the decision fails
   * with `ReplicaAckMissing` and is undone like a late reply. The memory engine ignores it.
   */
  replicaAck?: boolean;
}

/** Where and how the Redis engine counts a decision (see `LimitRequest.tally`). */
export interface Tally {
  key: string;
  text: string;
}

/** One rule's state after (or, for a peek, without) the decision. All times in ms from `nowMs`. */
export interface LimitOutcome {
  name: string;
  algorithm: AlgorithmName;
  /** Capacity: `limit` for windows, `burst ?? limit` for buckets. */
  limit: number;
  /** Whole units still available now (never negative). */
  remaining: number;
  /** Until the window resets (windows) or the bucket is full again (buckets). */
  resetMs: number;
  /** Until a request of this cost would be admitted by this rule; 0 when it is admitted now. */
  retryAfterMs: number;
}

export interface Decision {
  allowed: boolean;
  /** Max of the denying rules' retry-after; 0 when allowed. */
  retryAfterMs: number;
  /** Leaky bucket shaper only: the admitted request should proceed after this many ms (0 otherwise). */
  delayMs: number;
  nowMs: number;
  rules: LimitOutcome[];
}

export interface LeaseRequest extends Omit<LimitRequest, 'cost'> {
  /** Take up to this many units (at least 1 is needed for a grant). */
  max: number;
}

export interface Lease {
  /** Units taken from every rule (0..max); spend them locally, give back what is unused with `refund`. */
  granted: number;
  decision: Decision;
}

/** Both engines implement this. */
export interface Limiter {
  /** Check and charge `cost` against every rule, all or nothing. */
  consume(request: LimitRequest): Promise<Decision>;
  /** What `consume` would answer, without charging anything. */
  peek(request: LimitRequest): Promise<Decision>;
  /** Give back `cost` (e.g. the real cost was known after the fact); never above a rule's capacity. */
  refund(request: LimitRequest): Promise<Decision>;
  /** Take as many units as every rule can give, up to `max`, in one step. */
  lease(request: LeaseRequest): Promise<Lease>;
}

/** Where an engine gets "now" from in tests. */
export interface Clock {
  now(): number;
}
