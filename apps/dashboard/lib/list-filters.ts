import { KEY_KINDS, TENANT_STATUSES, type KeyKind } from './api-answers';
import type { SearchParams } from './pagination';

/**
 * The filters of the list pages' URLs, as the admin API takes them. Pure, so the pages and their tests share it.
 * Anything the API would refuse (a bad id, an unknown value, control characters) is left out: the list then shows
 * unfiltered by it rather than failing.
 */

/** The first value of a query parameter (`?a=1&a=2` → "1"). */
export function firstParam(params: SearchParams, name: string): string | undefined {
  const value = params[name];
  return (Array.isArray(value) ? value[0] : value) || undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** The id in `name` when it is one (a plan, a tenant). */
export function idParam(params: SearchParams, name: string): string | undefined {
  const value = firstParam(params, name);
  return value && UUID.test(value) ? value : undefined;
}

/** The list's search text (`?q=`): trimmed, at most 100 characters, no control characters; blank is none. */
export function searchParam(params: SearchParams): string | undefined {
  const text = firstParam(params, 'q')?.trim();
  return text && text.length <= 100 && !CONTROL.test(text) ? text : undefined;
}

export function oneOf<T extends string>(values: readonly T[], value: string | undefined): T | undefined {
  return value !== undefined && (values as readonly string[]).includes(value) ? (value as T) : undefined;
}

export interface TenantFilter {
  q?: string;
  plan?: string;
  status?: (typeof TENANT_STATUSES)[number];
}

/** The tenants page's filters: `?q=acme&plan=<id>&status=suspended`. */
export function parseTenantFilter(params: SearchParams): TenantFilter {
  const q = searchParam(params);
  const plan = idParam(params, 'plan');
  const status = oneOf(TENANT_STATUSES, firstParam(params, 'status'));
  return { ...(q ? { q } : {}), ...(plan ? { plan } : {}), ...(status ? { status } : {}) };
}

/** A key's state as the keys page filters it: the API knows revoked or not (an expired key is not revoked). */
export const KEY_STATES = ['active', 'revoked'] as const;
export const KEY_STATE_LABELS: Record<(typeof KEY_STATES)[number], string> = { active: 'Not revoked', revoked: 'Revoked' };

export interface KeyFilter {
  kind?: KeyKind;
  tenantId?: string;
  revoked?: boolean;
}

/** The keys page's filters: `?kind=tenant&tenantId=<id>&state=revoked`. */
export function parseKeyFilter(params: SearchParams): KeyFilter {
  const kind = oneOf(KEY_KINDS, firstParam(params, 'kind'));
  const tenantId = idParam(params, 'tenantId');
  const state = oneOf(KEY_STATES, firstParam(params, 'state'));
  return { ...(kind ? { kind } : {}), ...(tenantId ? { tenantId } : {}), ...(state ? { revoked: state === 'revoked' } : {}) };
}
