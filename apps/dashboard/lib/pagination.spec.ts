import { describe, expect, it } from 'vitest';
import { allPages, cursorTrail, filterQuery, listQuery, pageQuery, withQuery } from './pagination';

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

describe('listQuery', () => {
  it('reads a list page\'s filter and its trail of cursors from the query', async () => {
    const query = await listQuery(Promise.resolve({ q: 'acme', after: ['c1', 'c2'] }), (params) => ({ q: params.q }));
    expect(query).toEqual({ params: { q: 'acme', after: ['c1', 'c2'] }, filter: { q: 'acme' }, trail: ['c1', 'c2'] });
  });
});

describe('pageQuery', () => {
  it('asks for the page size, the filters that are set in their order, then the cursor', () => {
    expect(pageQuery(50, 'c1', { q: 'acme', plan: undefined, status: '', role: 'tenant' }).toString()).toBe('pageSize=50&q=acme&role=tenant&cursor=c1');
    expect(pageQuery(25, undefined).toString()).toBe('pageSize=25');
  });

  it('sends a filter value as it is, encoded', () => {
    expect(pageQuery(20, undefined, { q: 'a&b=c' }).get('q')).toBe('a&b=c');
  });
});

describe('allPages', () => {
  const pages: Record<string, { items: number[]; nextCursor: string | null }> = {
    start: { items: [1, 2], nextCursor: 'a' },
    a: { items: [3, 4], nextCursor: 'b' },
    b: { items: [5], nextCursor: null },
  };
  const fetchPage = async (cursor: string | undefined) => pages[cursor ?? 'start']!;

  it('follows every cursor to the last page', async () => {
    expect(await allPages(fetchPage)).toEqual({ items: [1, 2, 3, 4, 5], truncated: false });
  });

  it('stops at the cap and says there is more', async () => {
    expect(await allPages(fetchPage, 3)).toEqual({ items: [1, 2, 3], truncated: true });
    expect(await allPages(fetchPage, 5)).toEqual({ items: [1, 2, 3, 4, 5], truncated: false });
  });
});
