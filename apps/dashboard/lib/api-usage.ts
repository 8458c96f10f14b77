import { denialSamplesSchema, limitsInForceSchema, usageSeriesSchema } from '@tollgate/domain';
import type { DenialSamples, LimitsInForce, UsageSeries } from '@tollgate/domain';
import { adminPath, apiRequest, apiStream } from './api-client';

// Usage and the live state of limits: a tenant's for the operator, the signed-in user's own for the portal.

/** A range of usage, of every endpoint policy or of one. */
export interface UsageFilter {
  from: Date;
  to: Date;
  policy?: string;
}

/** How many recent denials a page shows. */
export const RECENT_DENIALS = 20;

function usageQuery({ from, to, policy }: UsageFilter, tenantSlug?: string): URLSearchParams {
  const query = new URLSearchParams({ from: from.toISOString(), to: to.toISOString() });
  if (tenantSlug !== undefined) query.set('tenant', tenantSlug);
  if (policy !== undefined) query.set('policy', policy);
  return query;
}

/** The limits and policies the tenant is held to, with the live state of its own limits (read without charging). */
export function getTenantLimitsInForce(token: string, tenantId: string): Promise<LimitsInForce> {
  return apiRequest(adminPath('tenants', tenantId, 'limits'), limitsInForceSchema, { token });
}

/** One tenant's decisions per bucket of the range (days in its time zone). */
export function getTenantUsage(token: string, tenantSlug: string, filter: UsageFilter): Promise<UsageSeries> {
  return apiRequest(`/v1/admin/usage?${usageQuery(filter, tenantSlug)}`, usageSeriesSchema, { token });
}

/** A sample of one tenant's recent denials, newest first. */
export function getTenantDenials(token: string, tenantSlug: string, limit = RECENT_DENIALS): Promise<DenialSamples> {
  return apiRequest(`/v1/admin/usage/denials?${new URLSearchParams({ tenant: tenantSlug, limit: String(limit) })}`, denialSamplesSchema, { token });
}

/** The signed-in user's tenant's decisions per bucket of the range; `policy` only one that applies to it. */
export function getOwnUsage(token: string, filter: UsageFilter): Promise<UsageSeries> {
  return apiRequest(`/v1/tenant/usage?${usageQuery(filter)}`, usageSeriesSchema, { token });
}

/** A sample of the signed-in user's tenant's recent denials, newest first. */
export function getOwnDenials(token: string, limit = RECENT_DENIALS): Promise<DenialSamples> {
  return apiRequest(`/v1/tenant/usage/denials?${new URLSearchParams({ limit: String(limit) })}`, denialSamplesSchema, { token });
}

/** The signed-in user's tenant's usage rows of the range as the API's CSV answer, to be passed on as it comes. */
export function ownUsageCsv(token: string, filter: UsageFilter): Promise<Response> {
  return apiStream(`/v1/tenant/usage.csv?${usageQuery(filter)}`, { token });
}
