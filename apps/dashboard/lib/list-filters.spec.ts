import { describe, expect, it } from 'vitest';
import { firstParam, parseKeyFilter, parseTenantFilter, searchParam } from './list-filters';

const id = '4b0f4a43-33c8-4a5c-9d0e-3c1e0d9f7a11';

describe('list filters from the URL', () => {
  it('takes the first of a repeated parameter, and blank as none', () => {
    expect(firstParam({ a: ['1', '2'] }, 'a')).toBe('1');
    expect(firstParam({ a: '' }, 'a')).toBeUndefined();
  });

  it('reads the search text trimmed, and refuses control characters and more than 100 characters', () => {
    expect(searchParam({ q: '  acme ' })).toBe('acme');
    expect(searchParam({ q: '   ' })).toBeUndefined();
    expect(searchParam({ q: 'a\nb' })).toBeUndefined();
    expect(searchParam({ q: 'x'.repeat(101) })).toBeUndefined();
    expect(searchParam({ q: '100%_' })).toBe('100%_');
  });

  it('reads the tenants filters, leaving out what the API would refuse', () => {
    expect(parseTenantFilter({ q: 'ac', plan: id, status: 'suspended' })).toEqual({ q: 'ac', plan: id, status: 'suspended' });
    expect(parseTenantFilter({ plan: 'starter', status: 'deleted', after: 'acme' })).toEqual({});
  });

  it('reads the keys filters: kind, tenant and state (revoked or not)', () => {
    expect(parseKeyFilter({ kind: 'tenant', tenantId: id, state: 'revoked' })).toEqual({ kind: 'tenant', tenantId: id, revoked: true });
    expect(parseKeyFilter({ state: 'active' })).toEqual({ revoked: false });
    expect(parseKeyFilter({ kind: 'root', tenantId: 'acme', state: 'gone' })).toEqual({});
  });
});
