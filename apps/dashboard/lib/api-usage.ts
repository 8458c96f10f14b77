import { degradedUsageSchema, denialSamplesSchema, limitsInForceSchema, limitsUsedSchema, plansAtLimitSchema, usageRoutesSchema, usageSeriesSchema, usageSummarySchema, usageTopSchema, wouldDenySchema } from '@tollgate/domain';
import { adminPath, apiRequest, apiStream } from './api-client';
import type { DegradedUsage, DenialSamples, LimitsInForce, LimitsUsed, PlansAtLimit, UsageRoutes, UsageSeries, UsageSummary, UsageTop, WouldDeny } from './api-answers';

// Usage, as the operator reads it (the series of a range, who leads it, what a shadow policy would have refused, a
// tenant's denials and the live state of its limits) and as a tenant's user reads its own.

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

/** How many recent denials a page shows. */
export const RECENT_DENIALS = 20;

/** Decisions per bucket of the range (the API picks the step), of one tenant (by slug; days in its zone), one endpoint policy, or all. */
export function getUsage(token: string, { from, to }: Range, filter: { policy?: string; tenant?: string } = {}): Promise<UsageSeries> {
  return apiRequest(`/v1/admin/usage?${query({ from, to, ...filter })}`, usageSeriesSchema, { token });
}

/**
 * The tenants or endpoint policies of the range with the highest 429 rate among those with `minDecisions`, or (metric
 * `refused`, tenants only) the tenants with the most refused checks, keys of no one among them (a null tenant).
 */
export function getUsageTop(token: string, { from, to }: Range, by: 'tenants' | 'policies', minDecisions: number, top = 5, metric: 'deny_rate' | 'refused' = 'deny_rate'): Promise<UsageTop> {
  return apiRequest(`/v1/admin/usage/top?${query({ from, to, by, metric, minDecisions, top })}`, usageTopSchema, { token });
}

/**
 * The routes (`METHOD /path`, endpoint policy or none) that lead the range, of every tenant or of one (by slug): by 429
 * rate among those with `minDecisions`, or by decisions; each with the limits that denied it.
 */
export function getUsageRoutes(token: string, { from, to }: Range, order: 'deny_rate' | 'decisions', options: { tenant?: string; minDecisions?: number; top?: number } = {}): Promise<UsageRoutes> {
  return apiRequest(`/v1/admin/usage/routes?${query({ from, to, order, ...options })}`, usageRoutesSchema, { token });
}

/** The ids of a list page's rows as the batched reads take them: `id` repeated. */
function idsQuery(ids: readonly string[], values: Record<string, string | number | Date | undefined> = {}): URLSearchParams {
  const params = query(values);
  for (const id of ids) params.append('id', id);
  return params;
}

/** The decisions, 429s and would-denies of each tenant or endpoint policy of a list page over the range, in one request. */
export function getUsageSummary(token: string, by: 'tenants' | 'policies', ids: readonly string[], { from, to }: Range): Promise<UsageSummary> {
  return apiRequest(`/v1/admin/usage/summary?${idsQuery(ids, { by, from, to })}`, usageSummarySchema, { token });
}

/** The most used limit now of each tenant of a list page, in one request. */
export function getLimitsUsed(token: string, tenantIds: readonly string[]): Promise<LimitsUsed> {
  return apiRequest(`/v1/admin/tenants/limits-used?${idsQuery(tenantIds)}`, limitsUsedSchema, { token });
}

/** How many tenants of each plan are at one of their limits now, in one request. */
export function getPlansAtLimit(token: string, planIds: readonly string[]): Promise<PlansAtLimit> {
  return apiRequest(`/v1/admin/plans/at-limit?${idsQuery(planIds)}`, plansAtLimitSchema, { token });
}

/** The decisions failure modes made over the range (Redis did not decide): by cause, per bucket, and the tenants with the most. */
export function getDegradedUsage(token: string, { from, to }: Range, top = 10): Promise<DegradedUsage> {
  return apiRequest(`/v1/admin/usage/degraded?${query({ from, to, top })}`, degradedUsageSchema, { token });
}

/** What enforcing the policy would have refused over the range: the exact count and the sampled subjects. */
export function getWouldDeny(token: string, policyId: string, { from, to }: Range, top = 50): Promise<WouldDeny> {
  return apiRequest(`/v1/admin/usage/would-deny?${query({ from, to, policy: policyId, top })}`, wouldDenySchema, { token });
}

/** A sample of one tenant's recent denials, newest first. */
export function getTenantDenials(token: string, tenantSlug: string, pageSize = RECENT_DENIALS): Promise<DenialSamples> {
  return apiRequest(`/v1/admin/usage/denials?${query({ tenant: tenantSlug, pageSize })}`, denialSamplesSchema, { token });
}

/** The limits and policies the tenant is held to, with the live state of its own limits (read without charging). */
export function getTenantLimitsInForce(token: string, tenantId: string): Promise<LimitsInForce> {
  return apiRequest(adminPath('tenants', tenantId, 'limits'), limitsInForceSchema, { token });
}

/** The signed-in user's tenant's decisions per bucket of the range; `policy` only one that applies to it. */
export function getOwnUsage(token: string, { from, to }: Range, filter: { policy?: string } = {}): Promise<UsageSeries> {
  return apiRequest(`/v1/tenant/usage?${query({ from, to, ...filter })}`, usageSeriesSchema, { token });
}

/** The signed-in user's tenant's routes that lead the range (by 429 rate or by decisions), with the limits that denied each. */
export function getOwnUsageRoutes(token: string, { from, to }: Range, order: 'deny_rate' | 'decisions', top = 10): Promise<UsageRoutes> {
  return apiRequest(`/v1/tenant/usage/routes?${query({ from, to, order, top })}`, usageRoutesSchema, { token });
}

/** A sample of the signed-in user's tenant's recent denials, newest first. */
export function getOwnDenials(token: string, pageSize = RECENT_DENIALS): Promise<DenialSamples> {
  return apiRequest(`/v1/tenant/usage/denials?${query({ pageSize })}`, denialSamplesSchema, { token });
}

/** The signed-in user's tenant's usage rows of the range as the API's CSV answer, to be passed on as it comes. */
export function ownUsageCsv(token: string, { from, to }: Range): Promise<Response> {
  return apiStream(`/v1/tenant/usage.csv?${query({ from, to })}`, { token });
}
