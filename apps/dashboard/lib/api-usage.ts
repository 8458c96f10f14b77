import { usageSeriesSchema, usageTopSchema, wouldDenySchema } from '@tollgate/domain';
import { apiRequest } from './api-client';
import type { UsageSeries, UsageTop, WouldDeny } from './api-answers';

// Usage, as the operator reads it: the series of a range, who leads it, what a shadow policy would have refused.

/** Only these two are sent: the API refuses parameters it does not know. */
interface Range {
  from: Date;
  to: Date;
}

const query = (values: Record<string, string | number | Date | undefined>) =>
  new URLSearchParams(
    Object.entries(values)
      .filter((entry): entry is [string, string | number | Date] => entry[1] !== undefined)
      .map(([name, value]) => [name, value instanceof Date ? value.toISOString() : String(value)]),
  );

/** Decisions per bucket of the range (the API picks the step), of one endpoint policy or all. */
export function getUsage(token: string, { from, to }: Range, filter: { policy?: string } = {}): Promise<UsageSeries> {
  return apiRequest(`/v1/admin/usage?${query({ from, to, ...filter })}`, usageSeriesSchema, { token });
}

/** The tenants or endpoint policies of the range with the highest 429 rate among those with `minDecisions`. */
export function getUsageTop(token: string, { from, to }: Range, by: 'tenants' | 'policies', minDecisions: number, limit = 5): Promise<UsageTop> {
  return apiRequest(`/v1/admin/usage/top?${query({ from, to, by, metric: 'deny_rate', minDecisions, limit })}`, usageTopSchema, { token });
}

/** What enforcing the policy would have refused over the range: the exact count and the sampled subjects. */
export function getWouldDeny(token: string, policyId: string, { from, to }: Range, limit = 50): Promise<WouldDeny> {
  return apiRequest(`/v1/admin/usage/would-deny?${query({ from, to, policy: policyId, limit })}`, wouldDenySchema, { token });
}
