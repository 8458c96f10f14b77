import { describe, expect, it } from 'vitest';
import { cursorTrail, filterQuery, withQuery } from './pagination';

describe('cursorTrail', () => {
  it('reads one cursor, several, or none', () => {
    expect(cursorTrail({ after: 'acme' })).toEqual(['acme']);
    expect(cursorTrail({ after: ['acme', 'globex', ''] })).toEqual(['acme', 'globex']);
    expect(cursorTrail({ role: 'tenant' })).toEqual([]);
    expect(cursorTrail({ before: '7' }, 'before')).toEqual(['7']);
  });
});

describe('filterQuery', () => {
  it('keeps the filters that are set and drops the cursors', () => {
    const query = filterQuery({ role: 'tenant', tenantId: '', after: ['a', 'b'], mode: ['x', 'y'] });
    expect(query.toString()).toBe('role=tenant');
    expect(withQuery('/users', query)).toBe('/users?role=tenant');
    expect(withQuery('/users', filterQuery({ after: 'a' }))).toBe('/users');
  });
});
