import { z } from 'zod';
import { apiRequest, adminPath } from './api-client';
import type { TenantFilter } from './list-filters';
import { allPages, pageQuery } from './pagination';
import {
  CLIENT_ADDRESS_HEADER,
  PAGE_SIZE,
  limitAnswerSchema, loginAnswerSchema, meAnswerSchema, overrideAnswerSchema, planAnswerSchema, planPageSchema, planViewSchema, policyAnswerSchema, policyPageSchema, policyViewSchema, ruleVersionAnswerSchema, tenantAnswerSchema, tenantCapsUsageSchema, tenantPageSchema, tenantViewSchema, type LimitPatch, type NewLimitBody, type TenantCapsPatch } from '@tollgate/domain';
import type { LoginResponse, OverrideResponse, Plan, PlanResponse, Policy, PolicyPage, PolicyResponse, RuleVersionResponse, Tenant, TenantCapsUsage, TenantPage, TenantResponse, UpdateLimitResponse, User } from './api-answers';

// The dashboard's calls to the Tollgate API, by resource. The transport is api-client.ts; keys, accounts and the
// tenant portal are api-access.ts, rule sets api-rule-sets.ts, the audit log api-audit.ts, usage and live limits
// api-usage.ts, webhooks api-webhooks.ts, alerts api-alerts.ts (all re-exported here: import from `@/lib/api`).
export { ApiError, type ApiFailureKind } from './api-client';
export * from './api-access';
export * from './api-rule-sets';
export * from './api-audit';
export * from './api-usage';
export * from './api-webhooks';
export * from './api-alerts';

/** `signedClientAddress`: the browser's address as the dashboard's server signed it (server.mts), passed on as is. */
export function login(email: string, password: string, signedClientAddress?: string): Promise<LoginResponse> {
  const headers = signedClientAddress ? { [CLIENT_ADDRESS_HEADER]: signedClientAddress } : undefined;
  return apiRequest('/v1/auth/login', loginAnswerSchema, { method: 'POST', body: { email, password }, headers });
}

export async function logout(token: string): Promise<void> {
  await apiRequest('/v1/auth/logout', z.unknown(), { method: 'POST', token });
}

export async function getMe(token: string): Promise<User> {
  return (await apiRequest('/v1/auth/me', meAnswerSchema, { token })).user;
}

/** Every plan (page after page; at most MAX_LISTED). */
export async function listPlans(token: string): Promise<Plan[]> {
  const query = (cursor: string | undefined) => new URLSearchParams({ pageSize: String(PAGE_SIZE.max), ...(cursor ? { cursor } : {}) });
  return (await allPages((cursor) => apiRequest(`/v1/admin/plans?${query(cursor)}`, planPageSchema, { token }))).items;
}


const planPath = (planId: string) => adminPath('plans', planId);

export function getPlan(token: string, planId: string): Promise<Plan> {
  return apiRequest(planPath(planId), planViewSchema, { token });
}

/** A limit as the API takes it, and a change of one: the domain's. */
export type NewLimit = NewLimitBody;
export type { LimitPatch };

/** A new plan with its first limits; a taken slug is a 409 `conflict`. */
export function createPlan(token: string, plan: { slug: string; name: string; limits: NewLimit[] }): Promise<PlanResponse> {
  return apiRequest('/v1/admin/plans', planAnswerSchema, { method: 'POST', token, body: plan });
}

export function renamePlan(token: string, planId: string, name: string): Promise<PlanResponse> {
  return apiRequest(planPath(planId), planAnswerSchema, { method: 'PATCH', token, body: { name } });
}

/** A 409 `conflict` while tenants are on the plan. */
export function deletePlan(token: string, planId: string): Promise<RuleVersionResponse> {
  return apiRequest(planPath(planId), ruleVersionAnswerSchema, { method: 'DELETE', token });
}

/** A plan's or a policy's own limits (`/v1/admin/<owners>/<id>/limits`): add one, change one, remove one. */
function ownedLimits(owners: 'plans' | 'policies') {
  return {
    create: (token: string, ownerId: string, limit: NewLimit): Promise<UpdateLimitResponse> =>
      apiRequest(adminPath(owners, ownerId, 'limits'), limitAnswerSchema, { method: 'POST', token, body: limit }),
    update: (token: string, ownerId: string, limitId: string, patch: LimitPatch): Promise<UpdateLimitResponse> =>
      apiRequest(adminPath(owners, ownerId, 'limits', limitId), limitAnswerSchema, { method: 'PATCH', token, body: patch }),
    remove: (token: string, ownerId: string, limitId: string): Promise<RuleVersionResponse> =>
      apiRequest(adminPath(owners, ownerId, 'limits', limitId), ruleVersionAnswerSchema, { method: 'DELETE', token }),
  };
}

export const planLimits = ownedLimits('plans');

/** A page of tenants by slug, filtered (`q`: part of the slug or name; `plan`: a plan id; `status`). */
export function listTenants(token: string, cursor: string | undefined, pageSize = 50, filter: TenantFilter = {}): Promise<TenantPage> {
  const query = pageQuery(pageSize, cursor, filter);
  return apiRequest(`/v1/admin/tenants?${query}`, tenantPageSchema, { token });
}

/** Every tenant, for pickers (page after page of the API's largest page; at most MAX_LISTED, `truncated` beyond). */
export function listAllTenants(token: string): Promise<{ items: TenantPage['items']; truncated: boolean }> {
  return allPages((cursor) => listTenants(token, cursor, PAGE_SIZE.max));
}

export interface NewTenant {
  slug: string;
  name: string;
  planId: string;
  timeZone?: string;
  status?: Tenant['status'];
}

/** A new tenant on a plan; a taken slug is a 409 `conflict`, an unknown time zone a 400 on `timeZone`. */
export function createTenant(token: string, tenant: NewTenant): Promise<TenantResponse> {
  return apiRequest('/v1/admin/tenants', tenantAnswerSchema, { method: 'POST', token, body: tenant });
}

const tenantPath = (tenantId: string, ...rest: string[]) => adminPath('tenants', tenantId, ...rest);

export function getTenant(token: string, tenantId: string): Promise<Tenant> {
  return apiRequest(tenantPath(tenantId), tenantViewSchema, { token });
}

/** Renames, moves to another plan, changes the time zone, suspends or resumes, or sets its caps (null: the default). */
export function updateTenant(token: string, tenantId: string, patch: Partial<Omit<NewTenant, 'slug'>> & { caps?: TenantCapsPatch }): Promise<TenantResponse> {
  return apiRequest(tenantPath(tenantId), tenantAnswerSchema, { method: 'PATCH', token, body: patch });
}

/** How many webhook endpoints and alert rules the tenant has, against its caps. */
export function getTenantCaps(token: string, tenantId: string): Promise<TenantCapsUsage> {
  return apiRequest(tenantPath(tenantId, 'caps'), tenantCapsUsageSchema, { token });
}

/** Deletes the tenant with its overrides, policies, keys and users. */
export function deleteTenant(token: string, tenantId: string): Promise<RuleVersionResponse> {
  return apiRequest(tenantPath(tenantId), ruleVersionAnswerSchema, { method: 'DELETE', token });
}

/** The tenant's own limit `name`: replaces its plan's limit of that name, or adds one. A bad name is a 400 without a field. */
export function setTenantOverride(token: string, tenantId: string, name: string, override: Omit<NewLimit, 'name'>): Promise<OverrideResponse> {
  return apiRequest(tenantPath(tenantId, 'overrides', name), overrideAnswerSchema, { method: 'PUT', token, body: override });
}

/** The plan's limit of that name applies again, if there is one. */
export function removeTenantOverride(token: string, tenantId: string, name: string): Promise<RuleVersionResponse> {
  return apiRequest(tenantPath(tenantId, 'overrides', name), ruleVersionAnswerSchema, { method: 'DELETE', token });
}

export interface PolicyFilter {
  /** Part of the name or route pattern. */
  q?: string;
  planId?: string;
  tenantId?: string;
  method?: Policy['method'];
  mode?: Policy['mode'];
}

/** A page of policies (pattern, then method order), filtered. */
export function listPolicies(token: string, filter: PolicyFilter, cursor: string | undefined, pageSize = 50): Promise<PolicyPage> {
  const query = pageQuery(pageSize, cursor, filter);
  return apiRequest(`/v1/admin/policies?${query}`, policyPageSchema, { token });
}

export type NewPolicy = ({ planId: string } | { tenantId: string }) &
  Pick<Policy, 'name' | 'method' | 'pattern' | 'cost' | 'scope' | 'mode' | 'failureMode' | 'replicaAck' | 'regionScope'> & { limits: NewLimit[] };
export type PolicyPatch = Partial<Pick<Policy, 'name' | 'method' | 'pattern' | 'cost' | 'scope' | 'mode' | 'failureMode' | 'replicaAck' | 'regionScope'>>;

const policyPath = (policyId: string) => adminPath('policies', policyId);

export function getPolicy(token: string, policyId: string): Promise<Policy> {
  return apiRequest(policyPath(policyId), policyViewSchema, { token });
}

/** A 409 `conflict` when the owner has a policy for this route or of this name; a 400 `rule_set_invalid` when it cannot run. */
export function createPolicy(token: string, policy: NewPolicy): Promise<PolicyResponse> {
  return apiRequest('/v1/admin/policies', policyAnswerSchema, { method: 'POST', token, body: policy });
}

export function updatePolicy(token: string, policyId: string, patch: PolicyPatch): Promise<PolicyResponse> {
  return apiRequest(policyPath(policyId), policyAnswerSchema, { method: 'PATCH', token, body: patch });
}

export function deletePolicy(token: string, policyId: string): Promise<RuleVersionResponse> {
  return apiRequest(policyPath(policyId), ruleVersionAnswerSchema, { method: 'DELETE', token });
}

export const policyLimits = ownedLimits('policies');
