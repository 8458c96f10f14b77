import { KEY_KINDS, type ApiKey, type KeyKind } from './api-answers';
import { OVERLAPS, type OverlapMenu, readOverlapChoice } from './overlaps';

/**
 * What the keys page shows and how its forms read back. Pure, so the page, its client components and the
 * server actions share one definition.
 */

export const KEYS_PATH = '/keys';

export type KeyStatus = 'active' | 'revoked' | 'expired';

/** Revoked wins over expired: a revoked key stays revoked whatever its expiry said. */
export function keyStatus(key: Pick<ApiKey, 'revokedAt' | 'expiresAt'>, now: number = Date.now()): KeyStatus {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && new Date(key.expiresAt).getTime() <= now) return 'expired';
  return 'active';
}

export function isKeyKind(value: unknown): value is KeyKind {
  return typeof value === 'string' && (KEY_KINDS as readonly string[]).includes(value);
}

export const KIND_LABELS: Record<KeyKind, string> = {
  service: 'Service',
  tenant: 'Tenant',
  operator: 'Operator',
};

/** What a key may reach, for the operator's table: a label, or the slugs of its tenants. */
export type KeyScope = { label: string } | { slugs: string[] };

/** A key's scope; a tenant key's tenant by slug from `tenantSlugs` (tenant id → slug). */
export function keyScope(key: Pick<ApiKey, 'kind' | 'tenantId' | 'allTenants' | 'tenants'>, tenantSlugs: ReadonlyMap<string, string>): KeyScope {
  if (key.kind === 'operator') return { label: 'admin API' };
  if (key.kind === 'tenant') return { slugs: [key.tenantId ? (tenantSlugs.get(key.tenantId) ?? key.tenantId) : '—'] };
  if (key.allTenants) return { label: 'all tenants' };
  // Scoped to tenants that were all deleted since: it checks none (never every tenant).
  return key.tenants.length === 0 ? { label: 'no tenants' } : { slugs: key.tenants.map((tenant) => tenant.slug) };
}

/** Whether a key is a service key that may check `tenantId`: one of every tenant, or of a list naming it. */
export function checksTenant(key: Pick<ApiKey, 'kind' | 'allTenants' | 'tenants'>, tenantId: string): boolean {
  return key.kind === 'service' && (key.allTenants || key.tenants.some((tenant) => tenant.id === tenantId));
}

/** "acme, globex , acme" → ["acme", "globex"]: the tenant slugs a service key is limited to (none: every tenant). */
export function parseTenantSlugs(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).map((slug) => slug.trim().toLowerCase()).filter(Boolean))];
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * An expiry date from a date input ("2027-01-31") as the API takes it: the end of that day, UTC. Undefined when
 * blank; null when it is not a date or the day is already over.
 */
export function expiryFromDate(text: string, now: number = Date.now()): string | undefined | null {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const match = DATE.exec(trimmed);
  if (!match) return null;
  const end = new Date(`${trimmed}T23:59:59.000Z`);
  if (Number.isNaN(end.getTime()) || end.toISOString().slice(0, 10) !== trimmed) return null;
  return end.getTime() > now ? end.toISOString() : null;
}

/** How long a rotated key's old secret keeps working next to the new one: a day at most, an hour unless chosen. */
export const KEY_OVERLAPS: OverlapMenu = { choices: OVERLAPS.slice(0, 3), defaultSeconds: 3_600 };

export function readOverlap(text: string): number {
  return readOverlapChoice(text, KEY_OVERLAPS);
}
