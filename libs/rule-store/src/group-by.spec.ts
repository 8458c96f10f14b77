import { describe, expect, it } from 'vitest';
import { groupBy } from './group-by';

describe('groupBy', () => {
  it('groups rows by their key, each group in the rows\' order, and gives no group to a key without rows', () => {
    const rows = [
      { owner: 'b', name: 'x' },
      { owner: 'a', name: 'y' },
      { owner: 'b', name: 'z' },
    ];
    const groups = groupBy(rows, (r) => r.owner);
    expect([...groups.keys()]).toEqual(['b', 'a']);
    expect(groups.get('b')?.map((r) => r.name)).toEqual(['x', 'z']);
    expect(groups.get('a')?.map((r) => r.name)).toEqual(['y']);
    expect(groups.get('c')).toBeUndefined();
  });
});
