import type { DegradedUsage } from './api-answers';

type CauseId = keyof DegradedUsage['byCause'];

/** Each cause of a degraded decision as the drill-down names it, in the order it shows them. */
export const DEGRADED_CAUSE_TEXT: readonly { id: CauseId; label: string; hint: string }[] = [
  { id: 'deadline', label: 'Deadline', hint: 'Redis answered after the decision deadline' },
  { id: 'circuit_open', label: 'Breaker', hint: 'the circuit was open: Redis was not asked' },
  { id: 'redis_error', label: 'Redis error', hint: 'the call failed (refused, reset, timed out)' },
  { id: 'replica', label: 'No replica', hint: 'a policy that waits for a replica got no acknowledgement in time' },
  { id: 'unknown', label: 'Cause not kept', hint: 'counted before usage kept causes' },
];

/** The buckets that had degraded decisions, newest first (a range of quiet minutes is not a list of zeros). */
export function degradedBuckets(points: DegradedUsage['points']): DegradedUsage['points'] {
  return points.filter((p) => p.decisions > 0).reverse();
}
