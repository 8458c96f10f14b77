import { describe, expect, it } from 'vitest';
import { checksTenant, expiryFromDate, keyScope, keyStatus, parseTenantSlugs, readOverlap } from './keys';

const NOW = Date.parse('2026-11-30T12:00:00Z');

describe('keyStatus', () => {
  it('is active without a revocation or a past expiry', () => {
    expect(keyStatus({ revokedAt: null, expiresAt: null }, NOW)).toBe('active');
    expect(keyStatus({ revokedAt: null, expiresAt: '2026-12-01T00:00:00Z' }, NOW)).toBe('active');
  });
  it('is expired once the expiry has passed, revoked whatever the expiry', () => {
    expect(keyStatus({ revokedAt: null, expiresAt: '2026-11-30T11:59:59Z' }, NOW)).toBe('expired');
    expect(keyStatus({ revokedAt: '2026-11-01T00:00:00Z', expiresAt: '2026-11-02T00:00:00Z' }, NOW)).toBe('revoked');
  });
});

describe('keyScope', () => {
  const service = { kind: 'service' as const, tenantId: null };
  it('names a service key\'s tenants by slug, or says it reaches every tenant', () => {
    expect(keyScope({ ...service, allTenants: false, tenants: [{ id: 't1', slug: 'acme', name: 'Acme' }] }, new Map())).toEqual({ slugs: ['acme'] });
    expect(keyScope({ ...service, allTenants: true, tenants: [] }, new Map())).toEqual({ label: 'all tenants' });
    // The service keys a tenant's page lists: of every tenant, or of a list naming it; never a tenant's own key.
    expect(checksTenant({ ...service, allTenants: true, tenants: [] }, 't1')).toBe(true);
    expect(checksTenant({ ...service, allTenants: false, tenants: [{ id: 't1', slug: 'acme', name: 'Acme' }] }, 't1')).toBe(true);
    expect(checksTenant({ ...service, allTenants: false, tenants: [{ id: 't2', slug: 'globex', name: 'Globex' }] }, 't1')).toBe(false);
    expect(checksTenant({ kind: 'tenant', allTenants: false, tenants: [] }, 't1')).toBe(false);
  });
  it('says a service key whose tenants were all deleted reaches none, not every tenant', () => {
    expect(keyScope({ ...service, allTenants: false, tenants: [] }, new Map())).toEqual({ label: 'no tenants' });
  });
  it('names a tenant key\'s tenant by slug', () => {
    expect(keyScope({ kind: 'tenant', tenantId: 't1', allTenants: false, tenants: [] }, new Map([['t1', 'acme']]))).toEqual({ slugs: ['acme'] });
  });
});

describe('parseTenantSlugs', () => {
  it('splits on commas and spaces, drops blanks and repeats', () => {
    expect(parseTenantSlugs(' acme, globex ,,Acme  initech')).toEqual(['acme', 'globex', 'initech']);
    expect(parseTenantSlugs('  ')).toEqual([]);
  });
});

describe('expiryFromDate', () => {
  it('is the end of the day, UTC', () => {
    expect(expiryFromDate('2027-01-31', NOW)).toBe('2027-01-31T23:59:59.000Z');
    expect(expiryFromDate('2026-11-30', NOW)).toBe('2026-11-30T23:59:59.000Z');
  });
  it('is undefined when blank, null when not a date or already over', () => {
    expect(expiryFromDate('', NOW)).toBeUndefined();
    expect(expiryFromDate('2026-11-29', NOW)).toBeNull();
    expect(expiryFromDate('2027-02-30', NOW)).toBeNull();
    expect(expiryFromDate('tomorrow', NOW)).toBeNull();
  });
});

describe('readOverlap', () => {
  it('takes an offered overlap and falls back to an hour', () => {
    expect(readOverlap('0')).toBe(0);
    expect(readOverlap('86400')).toBe(86_400);
    expect(readOverlap('5')).toBe(3_600);
    expect(readOverlap('')).toBe(3_600);
  });
});
