import { z } from 'zod';
import { config } from './config';
import {
  accountPageSchema,
  accountSchema,
  errorBodySchema,
  keyListSchema,
  keyResponseSchema,
  keySecretResponseSchema,
  loginResponseSchema,
  meResponseSchema,
  overrideResponseSchema,
  ownLimitsSchema,
  ownTenantSchema,
  planListSchema,
  planResponseSchema,
  planSchema,
  policyPageSchema,
  policyResponseSchema,
  restoreRuleSetResponseSchema,
  ruleVersionResponseSchema,
  ruleSetDiffSchema,
  ruleSetPageSchema,
  ruleSetSummarySchema,
  ruleSetVersionSchema,
  tenantPageSchema,
  tenantResponseSchema,
  tenantSchema,
  updateLimitResponseSchema,
  type Account,
  type AccountPage,
  type ApiKey,
  type KeyKind,
  type KeyResponse,
  type KeySecretResponse,
  type LimitOverride,
  type LoginResponse,
  type OverrideResponse,
  type OwnLimits,
  type OwnTenant,
  type Plan,
  type PlanResponse,
  type Policy,
  type PolicyPage,
  type PolicyResponse,
  type RestoreRuleSetResponse,
  type RuleVersionResponse,
  type RuleSetDiff,
  type RuleSetPage,
  type RuleSetSummary,
  type RuleSetVersion,
  type Tenant,
  type TenantPage,
  type TenantResponse,
  type UpdateLimitResponse,
  type User,
  type UserRole,
} from './api-types';

const REQUEST_TIMEOUT_MS = 8_000;

/**
 * Why a call to the API failed. `unreachable`: no HTTP answer at all (refused, DNS, timeout);
 * `http`: the API answered with an error body; `contract`: the API answered 2xx with JSON we can't read.
 */
export type ApiFailureKind = 'unreachable' | 'http' | 'contract';

interface ApiErrorDetails {
  kind: ApiFailureKind;
  /** HTTP status, or 0 when the API never answered. */
  status: number;
  code: string;
  message: string;
  field?: string;
  cause?: unknown;
}

export class ApiError extends Error {
  readonly kind: ApiFailureKind;
  readonly status: number;
  readonly code: string;
  readonly field?: string;

  constructor({ kind, status, code, message, field, cause }: ApiErrorDetails) {
    super(message, { cause });
    this.name = 'ApiError';
    this.kind = kind;
    this.status = status;
    this.code = code;
    this.field = field;
  }

  get isUnauthenticated(): boolean {
    return this.status === 401;
  }
}

interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  token?: string;
  body?: unknown;
}

/** The one HTTP helper: JSON in and out, Bearer token, never cached, every failure turned into an ApiError. */
async function apiRequest<T>(path: string, schema: z.ZodType<T>, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';

  let response: Response;
  try {
    response = await fetch(`${config.api.baseUrl}${path}`, {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      cache: 'no-store',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (cause) {
    const message = `Could not reach the Tollgate API at ${config.api.baseUrl}.`;
    throw new ApiError({ kind: 'unreachable', status: 0, code: 'api_unreachable', message, cause });
  }

  if (!response.ok) throw await errorFromResponse(response);
  const payload: unknown = response.status === 204 ? undefined : await response.json().catch(() => undefined);
  const parsed = schema.safeParse(payload);
  if (!parsed.success) {
    const message = `The API's answer to ${path} was not in the expected shape.`;
    throw new ApiError({ kind: 'contract', status: response.status, code: 'unexpected_response', message, cause: parsed.error });
  }
  return parsed.data;
}

async function errorFromResponse(response: Response): Promise<ApiError> {
  const body = errorBodySchema.safeParse(await response.json().catch(() => undefined));
  if (body.success) {
    return new ApiError({ kind: 'http', status: response.status, ...body.data.error });
  }
  const message = `The API answered ${response.status} ${response.statusText}.`;
  return new ApiError({ kind: 'http', status: response.status, code: `http_${response.status}`, message });
}

export function login(email: string, password: string): Promise<LoginResponse> {
  return apiRequest('/v1/auth/login', loginResponseSchema, { method: 'POST', body: { email, password } });
}

export async function logout(token: string): Promise<void> {
  await apiRequest('/v1/auth/logout', z.unknown(), { method: 'POST', token });
}

export async function getMe(token: string): Promise<User> {
  return (await apiRequest('/v1/auth/me', meResponseSchema, { token })).user;
}

export async function listPlans(token: string): Promise<Plan[]> {
  return (await apiRequest('/v1/admin/plans', planListSchema, { token })).items;
}

/** `/v1/admin/<collection>/<id>/…`, every part after the collection encoded. */
function adminPath(collection: 'plans' | 'tenants' | 'policies' | 'users', id: string, ...rest: string[]): string {
  return [`/v1/admin/${collection}`, id, ...rest].map((part, i) => (i === 0 ? part : encodeURIComponent(part))).join('/');
}

const planPath = (planId: string, ...rest: string[]) => adminPath('plans', planId, ...rest);

export function getPlan(token: string, planId: string): Promise<Plan> {
  return apiRequest(planPath(planId), planSchema, { token });
}

export interface NewLimit {
  name: string;
  windowS: number;
  limit: number;
  algorithm?: string;
  burst?: number | null;
}

export type LimitPatch = Partial<Pick<NewLimit, 'windowS' | 'limit' | 'algorithm' | 'burst'>>;

/** A new plan with its first limits; a taken slug is a 409 `conflict`. */
export function createPlan(token: string, plan: { slug: string; name: string; limits: NewLimit[] }): Promise<PlanResponse> {
  return apiRequest('/v1/admin/plans', planResponseSchema, { method: 'POST', token, body: plan });
}

export function renamePlan(token: string, planId: string, name: string): Promise<PlanResponse> {
  return apiRequest(planPath(planId), planResponseSchema, { method: 'PATCH', token, body: { name } });
}

/** A 409 `conflict` while tenants are on the plan. */
export function deletePlan(token: string, planId: string): Promise<RuleVersionResponse> {
  return apiRequest(planPath(planId), ruleVersionResponseSchema, { method: 'DELETE', token });
}

export function createPlanLimit(token: string, planId: string, limit: NewLimit): Promise<UpdateLimitResponse> {
  return apiRequest(planPath(planId, 'limits'), updateLimitResponseSchema, { method: 'POST', token, body: limit });
}

export function updatePlanLimit(token: string, planId: string, limitId: string, patch: LimitPatch): Promise<UpdateLimitResponse> {
  return apiRequest(planPath(planId, 'limits', limitId), updateLimitResponseSchema, { method: 'PATCH', token, body: patch });
}

export function deletePlanLimit(token: string, planId: string, limitId: string): Promise<RuleVersionResponse> {
  return apiRequest(planPath(planId, 'limits', limitId), ruleVersionResponseSchema, { method: 'DELETE', token });
}

export function listTenants(token: string, cursor: string | undefined, pageSize = 50): Promise<TenantPage> {
  const query = new URLSearchParams({ limit: String(pageSize) });
  if (cursor) query.set('cursor', cursor);
  return apiRequest(`/v1/admin/tenants?${query}`, tenantPageSchema, { token });
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
  return apiRequest('/v1/admin/tenants', tenantResponseSchema, { method: 'POST', token, body: tenant });
}

const tenantPath = (tenantId: string, ...rest: string[]) => adminPath('tenants', tenantId, ...rest);

export function getTenant(token: string, tenantId: string): Promise<Tenant> {
  return apiRequest(tenantPath(tenantId), tenantSchema, { token });
}

/** Renames, moves to another plan, changes the time zone, suspends or resumes. */
export function updateTenant(token: string, tenantId: string, patch: Partial<Omit<NewTenant, 'slug'>>): Promise<TenantResponse> {
  return apiRequest(tenantPath(tenantId), tenantResponseSchema, { method: 'PATCH', token, body: patch });
}

/** Deletes the tenant with its overrides, policies, keys and users. */
export function deleteTenant(token: string, tenantId: string): Promise<RuleVersionResponse> {
  return apiRequest(tenantPath(tenantId), ruleVersionResponseSchema, { method: 'DELETE', token });
}

/** The tenant's own limit `name`: replaces its plan's limit of that name, or adds one. A bad name is a 400 without a field. */
export function setTenantOverride(token: string, tenantId: string, name: string, override: Omit<LimitOverride, 'name'>): Promise<OverrideResponse> {
  return apiRequest(tenantPath(tenantId, 'overrides', name), overrideResponseSchema, { method: 'PUT', token, body: override });
}

/** The plan's limit of that name applies again, if there is one. */
export function removeTenantOverride(token: string, tenantId: string, name: string): Promise<RuleVersionResponse> {
  return apiRequest(tenantPath(tenantId, 'overrides', name), ruleVersionResponseSchema, { method: 'DELETE', token });
}

export interface PolicyFilter {
  planId?: string;
  tenantId?: string;
  method?: Policy['method'];
  mode?: Policy['mode'];
}

/** A page of policies (pattern, then method order), filtered. */
export function listPolicies(token: string, filter: PolicyFilter, cursor: string | undefined, pageSize = 50): Promise<PolicyPage> {
  const query = new URLSearchParams({ limit: String(pageSize) });
  for (const [name, value] of Object.entries(filter)) if (value) query.set(name, value);
  if (cursor) query.set('cursor', cursor);
  return apiRequest(`/v1/admin/policies?${query}`, policyPageSchema, { token });
}

export type NewPolicy = ({ planId: string } | { tenantId: string }) &
  Pick<Policy, 'name' | 'method' | 'pattern' | 'cost' | 'scope' | 'mode' | 'failureMode'> & { limits: NewLimit[] };
export type PolicyPatch = Partial<Pick<Policy, 'name' | 'method' | 'pattern' | 'cost' | 'scope' | 'mode' | 'failureMode'>>;

const policyPath = (policyId: string, ...rest: string[]) => adminPath('policies', policyId, ...rest);

/** A 409 `conflict` when the owner has a policy for this route or of this name; a 400 `rule_set_invalid` when it cannot run. */
export function createPolicy(token: string, policy: NewPolicy): Promise<PolicyResponse> {
  return apiRequest('/v1/admin/policies', policyResponseSchema, { method: 'POST', token, body: policy });
}

export function updatePolicy(token: string, policyId: string, patch: PolicyPatch): Promise<PolicyResponse> {
  return apiRequest(policyPath(policyId), policyResponseSchema, { method: 'PATCH', token, body: patch });
}

export function deletePolicy(token: string, policyId: string): Promise<RuleVersionResponse> {
  return apiRequest(policyPath(policyId), ruleVersionResponseSchema, { method: 'DELETE', token });
}

export function createPolicyLimit(token: string, policyId: string, limit: NewLimit): Promise<UpdateLimitResponse> {
  return apiRequest(policyPath(policyId, 'limits'), updateLimitResponseSchema, { method: 'POST', token, body: limit });
}

export function updatePolicyLimit(token: string, policyId: string, limitId: string, patch: LimitPatch): Promise<UpdateLimitResponse> {
  return apiRequest(policyPath(policyId, 'limits', limitId), updateLimitResponseSchema, { method: 'PATCH', token, body: patch });
}

export function deletePolicyLimit(token: string, policyId: string, limitId: string): Promise<RuleVersionResponse> {
  return apiRequest(policyPath(policyId, 'limits', limitId), ruleVersionResponseSchema, { method: 'DELETE', token });
}

export async function listKeys(token: string, filter: { kind?: KeyKind; tenantId?: string; revoked?: boolean } = {}): Promise<ApiKey[]> {
  const query = new URLSearchParams();
  if (filter.kind) query.set('kind', filter.kind);
  if (filter.tenantId) query.set('tenantId', filter.tenantId);
  if (filter.revoked !== undefined) query.set('revoked', String(filter.revoked));
  const search = query.toString();
  return (await apiRequest(`/v1/admin/keys${search ? `?${search}` : ''}`, keyListSchema, { token })).items;
}

export type NewKey =
  | { kind: 'service'; name: string; tenants?: string[]; expiresAt?: string }
  | { kind: 'tenant'; name: string; tenantId: string; expiresAt?: string }
  | { kind: 'operator'; name: string; expiresAt?: string };

/** A new key; its secret is in this answer only. Bad input is a 400 on its field, too many in a minute a 429. */
export function createKey(token: string, key: NewKey): Promise<KeySecretResponse> {
  return apiRequest('/v1/admin/keys', keySecretResponseSchema, { method: 'POST', token, body: key });
}

function keyPath(keyId: string, action: 'revoke' | 'rotate'): string {
  return `/v1/admin/keys/${encodeURIComponent(keyId)}/${action}`;
}

/** A 409 when the key is already revoked or expired. */
export function revokeKey(token: string, keyId: string): Promise<KeyResponse> {
  return apiRequest(keyPath(keyId, 'revoke'), keyResponseSchema, { method: 'POST', token });
}

/** A new secret for the key; the old one keeps working for `overlapSeconds`. A 409 when revoked or expired. */
export function rotateKey(token: string, keyId: string, overlapSeconds: number): Promise<KeySecretResponse> {
  return apiRequest(keyPath(keyId, 'rotate'), keySecretResponseSchema, { method: 'POST', token, body: { overlapSeconds } });
}

export interface AccountFilter {
  role?: UserRole;
  tenantId?: string;
}

/** Accounts by e-mail, a page at a time; `cursor` is the previous page's `nextCursor`. */
export function listAccounts(token: string, filter: AccountFilter, cursor: string | undefined, pageSize = 50): Promise<AccountPage> {
  const query = new URLSearchParams({ limit: String(pageSize) });
  for (const [name, value] of Object.entries(filter)) if (value) query.set(name, value);
  if (cursor) query.set('cursor', cursor);
  return apiRequest(`/v1/admin/users?${query}`, accountPageSchema, { token });
}

export type NewAccount = { email: string; name: string; password: string } & ({ role: 'operator' } | { role: 'tenant'; tenantId: string });

/** A taken e-mail is a 409 `conflict` on `email`; a short password a 400 on `password`. */
export function createAccount(token: string, account: NewAccount): Promise<Account> {
  return apiRequest('/v1/admin/users', accountSchema, { method: 'POST', token, body: account });
}

/** A new name, or a new password (which ends every session of the account). */
export function updateAccount(token: string, userId: string, patch: { name?: string; password?: string }): Promise<Account> {
  return apiRequest(adminPath('users', userId), accountSchema, { method: 'PATCH', token, body: patch });
}

/** A 409 `conflict` for the caller's own account. */
export async function deleteAccount(token: string, userId: string): Promise<void> {
  await apiRequest(adminPath('users', userId), z.unknown(), { method: 'DELETE', token });
}

/** The signed-in tenant user's own tenant; an operator is refused (403). */
export function getOwnTenant(token: string): Promise<OwnTenant> {
  return apiRequest('/v1/tenant', ownTenantSchema, { token });
}

/** The limits and policies every node holds the signed-in user's tenant to now. */
export function getOwnLimits(token: string): Promise<OwnLimits> {
  return apiRequest('/v1/tenant/limits', ownLimitsSchema, { token });
}

/** The tenant keys of the signed-in user's tenant, newest first: never a secret. */
export async function listOwnKeys(token: string): Promise<ApiKey[]> {
  return (await apiRequest('/v1/tenant/keys', keyListSchema, { token })).items;
}

/** The rule set every API node enforces now, or null before the first one is published. */
export async function getCurrentRuleSet(token: string): Promise<RuleSetSummary | null> {
  try {
    return await apiRequest('/v1/admin/rule-sets/current', ruleSetSummarySchema, { token });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_found') return null;
    throw error;
  }
}

/** Rule set versions, newest first; `before` is the previous page's `nextBefore`. */
export function listRuleSets(token: string, before: string | undefined, pageSize = 20): Promise<RuleSetPage> {
  const query = new URLSearchParams({ limit: String(pageSize) });
  if (before) query.set('before', before);
  return apiRequest(`/v1/admin/rule-sets?${query}`, ruleSetPageSchema, { token });
}

/** One version with its diff against the version before it. */
export function getRuleSet(token: string, version: number): Promise<RuleSetVersion> {
  return apiRequest(`/v1/admin/rule-sets/${version}`, ruleSetVersionSchema, { token });
}

export function diffRuleSets(token: string, from: number, to: number): Promise<RuleSetDiff> {
  const query = new URLSearchParams({ from: String(from), to: String(to) });
  return apiRequest(`/v1/admin/rule-sets/diff?${query}`, ruleSetDiffSchema, { token });
}

/** Puts the plans, limits and plan assignments of `version` back, published as a new version. */
export function restoreRuleSet(token: string, version: number): Promise<RestoreRuleSetResponse> {
  return apiRequest(`/v1/admin/rule-sets/${version}/restore`, restoreRuleSetResponseSchema, { method: 'POST', token });
}
