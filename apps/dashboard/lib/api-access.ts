import { z } from 'zod';
import { apiRequest, adminPath } from './api-client';
import { pageQuery } from './pagination';
import { keyAnswerSchema, keyListSchema, keyPageSchema, keyRotationAnswerSchema, keySecretAnswerSchema, limitsInForceSchema, ownTenantSchema, tenantCapsUsageSchema, userPageSchema, userViewSchema } from '@tollgate/domain';
import type { Account, AccountPage, ApiKey, KeyKind, KeyResponse, KeySecretResponse, LimitsInForce, OwnTenant, TenantCapsUsage, UserRole } from './api-answers';

// API keys, dashboard accounts, and a tenant user's own tenant (the portal).
export async function listKeys(token: string, filter: { kind?: KeyKind; tenantId?: string; revoked?: boolean } = {}): Promise<ApiKey[]> {
  // One page, as many as the keys page shows.
  const query = new URLSearchParams({ pageSize: '100' });
  if (filter.kind) query.set('kind', filter.kind);
  if (filter.tenantId) query.set('tenantId', filter.tenantId);
  if (filter.revoked !== undefined) query.set('revoked', String(filter.revoked));
  const search = query.toString();
  return (await apiRequest(`/v1/admin/keys${search ? `?${search}` : ''}`, keyPageSchema, { token })).items;
}

export type NewKey =
  | { kind: 'service'; name: string; tenants?: string[]; expiresAt?: string }
  | { kind: 'tenant'; name: string; tenantId: string; expiresAt?: string }
  | { kind: 'operator'; name: string; expiresAt?: string };

/** A new key; its secret is in this answer only. Bad input is a 400 on its field, too many in a minute a 429. */
export function createKey(token: string, key: NewKey): Promise<KeySecretResponse> {
  return apiRequest('/v1/admin/keys', keySecretAnswerSchema, { method: 'POST', token, body: key });
}

function keyPath(keyId: string, action: 'revoke' | 'rotate'): string {
  return `/v1/admin/keys/${encodeURIComponent(keyId)}/${action}`;
}

/** A 409 when the key is already revoked or expired. */
export function revokeKey(token: string, keyId: string): Promise<KeyResponse> {
  return apiRequest(keyPath(keyId, 'revoke'), keyAnswerSchema, { method: 'POST', token });
}

/** A new secret for the key; the old one keeps working for `overlapSeconds`. A 409 when revoked or expired. */
export function rotateKey(token: string, keyId: string, overlapSeconds: number): Promise<KeySecretResponse> {
  return apiRequest(keyPath(keyId, 'rotate'), keyRotationAnswerSchema, { method: 'POST', token, body: { overlapSeconds } });
}

export interface AccountFilter {
  /** Part of the e-mail or name. */
  q?: string;
  role?: UserRole;
  tenantId?: string;
}

/** Accounts by e-mail, a page at a time; `cursor` is the previous page's `nextCursor`. */
export function listAccounts(token: string, filter: AccountFilter, cursor: string | undefined, pageSize = 50): Promise<AccountPage> {
  const query = pageQuery(pageSize, cursor, filter);
  return apiRequest(`/v1/admin/users?${query}`, userPageSchema, { token });
}

export type NewAccount = { email: string; name: string; password: string } & ({ role: 'operator' } | { role: 'tenant'; tenantId: string });

/** A taken e-mail is a 409 `conflict` on `email`; a short password a 400 on `password`. */
export function createAccount(token: string, account: NewAccount): Promise<Account> {
  return apiRequest('/v1/admin/users', userViewSchema, { method: 'POST', token, body: account });
}

/** A new name, or a new password (which ends every session of the account). */
export function updateAccount(token: string, userId: string, patch: { name?: string; password?: string }): Promise<Account> {
  return apiRequest(adminPath('users', userId), userViewSchema, { method: 'PATCH', token, body: patch });
}

/** A 409 `conflict` for the caller's own account. */
export async function deleteAccount(token: string, userId: string): Promise<void> {
  await apiRequest(adminPath('users', userId), z.unknown(), { method: 'DELETE', token });
}

/** The signed-in tenant user's own tenant; an operator is refused (403). */
export function getOwnTenant(token: string): Promise<OwnTenant> {
  return apiRequest('/v1/tenant', ownTenantSchema, { token });
}

/** The limits and policies every node holds the signed-in user's tenant to now, with the live state of its own limits. */
export function getOwnLimits(token: string): Promise<LimitsInForce> {
  return apiRequest('/v1/tenant/limits', limitsInForceSchema, { token });
}

/** How many webhook endpoints and alert rules the signed-in user's tenant has, against its caps. */
export function getOwnCaps(token: string): Promise<TenantCapsUsage> {
  return apiRequest('/v1/tenant/caps', tenantCapsUsageSchema, { token });
}

/** The tenant keys of the signed-in user's tenant, newest first: never a secret. */
export async function listOwnKeys(token: string): Promise<ApiKey[]> {
  return (await apiRequest('/v1/tenant/keys', keyListSchema, { token })).items;
}
