import type { UserRole } from './api-answers';
import { safeReturnPath } from './format';

/**
 * Which pages each kind of account is shown. Operators land on the overview of usage (`/overview`) and manage
 * everything from there; a tenant's user sees only its own tenant, under `/portal`. Pure, so the layouts, the sign-in action and their tests share it.
 */
export const OPERATOR_HOME = '/overview';
export const TENANT_HOME = '/portal';

export function homePath(role: UserRole): string {
  return role === 'tenant' ? TENANT_HOME : OPERATOR_HOME;
}

/** Whether `path` (with its query) is one of a tenant's own pages. */
export function isTenantPath(path: string): boolean {
  return path === TENANT_HOME || path.startsWith(`${TENANT_HOME}/`) || path.startsWith(`${TENANT_HOME}?`);
}

/** Where to go after signing in: the page that was asked for (`next`) when this account is shown it, else its home. */
export function landingPath(role: UserRole, next: unknown): string {
  const path = safeReturnPath(next);
  return path !== undefined && isTenantPath(path) === (role === 'tenant') ? path : homePath(role);
}
