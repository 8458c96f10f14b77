import { describe, expect, it } from 'vitest';
import { parseSelection, parseTrail, ruleSetsHref } from './rule-sets';

describe('parseSelection', () => {
  it('is nothing without a query', () => {
    expect(parseSelection({})).toEqual({ kind: 'none' });
  });

  it('reads one version', () => {
    expect(parseSelection({ version: '12' })).toEqual({ kind: 'version', version: 12 });
    expect(parseSelection({ version: 'v7' })).toEqual({ kind: 'version', version: 7 });
  });

  it('reads a comparison, which wins over a version', () => {
    expect(parseSelection({ from: '3', to: '7', version: '5' })).toEqual({ kind: 'compare', from: 3, to: 7 });
  });

  it.each([{ version: 'abc' }, { version: '0' }, { version: '-2' }, { from: '3' }, { from: '', to: '' }, { from: '1.5', to: '2' }])(
    'refuses %j with a message',
    (params) => {
      expect(parseSelection(params)).toMatchObject({ kind: 'invalid', message: expect.any(String) });
    },
  );
});

describe('parseTrail', () => {
  it('keeps the before cursors in order and drops anything that is not a version', () => {
    expect(parseTrail({ before: ['41', 'x', '21'] })).toEqual(['41', '21']);
    expect(parseTrail({ before: '41' })).toEqual(['41']);
    expect(parseTrail({})).toEqual([]);
  });
});

describe('ruleSetsHref', () => {
  it('links the page of versions and the selection', () => {
    expect(ruleSetsHref([])).toBe('/rule-sets');
    expect(ruleSetsHref(['41'], { version: 30 })).toBe('/rule-sets?before=41&version=30');
    expect(ruleSetsHref([], { from: 3, to: 7 })).toBe('/rule-sets?from=3&to=7');
  });
});
