import { USER_ROLES, type UserRole } from './api-answers';
import type { AccountFilter } from './api';
import { searchParam } from './list-filters';
import type { SearchParams } from './pagination';

/** What the users page and its forms share. Pure, so the page, its client components and their tests share it. */

export const USERS_PATH = '/users';

export const ROLE_LABELS: Record<UserRole, string> = { operator: 'Operator', tenant: 'Tenant user' };

export function isUserRole(value: unknown): value is UserRole {
  return typeof value === 'string' && (USER_ROLES as readonly string[]).includes(value);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The filters of the users page's URL (`?q=…&role=tenant&tenantId=…`); anything the API would refuse is ignored. */
export function parseAccountFilter(params: SearchParams): AccountFilter {
  const first = (name: string) => {
    const value = params[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const role = first('role');
  const tenantId = first('tenantId');
  const q = searchParam(params);
  return { ...(q ? { q } : {}), ...(isUserRole(role) ? { role } : {}), ...(tenantId && UUID.test(tenantId) ? { tenantId } : {}) };
}
