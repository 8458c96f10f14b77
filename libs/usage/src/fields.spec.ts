import { TALLY } from '@tollgate/limiter';
import { describe, expect, it } from 'vitest';
import { costField, countField, countsOf, keyCountsOf, keyField, NO_POLICY, routeCountsOf, routeField, tallyBase, USAGE_RESULTS } from './fields';

describe('usage hash fields', () => {
  const policy = '0b7f4f6e-2f0e-4d59-9a51-3c1f2d9b8e11';

  it('joins the decisions and the cost of one policy, result and reason into one row', () => {
    const rows = countsOf({
      [countField(policy, 'allowed', '')]: '7',
      [costField(policy, 'allowed', '')]: '21',
      [countField(null, 'denied', 'minute')]: '2',
      [countField(null, 'refused', 'key_invalid')]: '1',
    });
    expect(rows).toEqual([
      { policyId: policy, result: 'allowed', reason: '', decisions: 7, cost: 21 },
      { policyId: null, result: 'denied', reason: 'minute', decisions: 2, cost: 0 },
      { policyId: null, result: 'refused', reason: 'key_invalid', decisions: 1, cost: 0 },
    ]);
  });

  it('writes the policy as "-" when none matched', () => {
    expect(countField(null, 'allowed', '')).toBe(`n|${NO_POLICY}|allowed|`);
  });

  it('skips fields that are not of the form, and values that are not integers', () => {
    const rows = countsOf(new Map([
      ['x|-|allowed|', '1'],
      ['n|-|exploded|', '1'],
      ['n||allowed|', '1'],
      ['n|-|allowed', '1'],
      ['n|-|allowed|', 'NaN'],
      ['n|-|denied|daily', '3'],
    ]));
    expect(rows).toEqual([{ policyId: null, result: 'denied', reason: 'daily', decisions: 3, cost: 0 }]);
  });

  it('never reads a count or a cost below 0 (a hash written by an older script: a refund of nothing charged)', () => {
    expect(countsOf({ [costField(null, 'allowed', '')]: '-7' })).toEqual([{ policyId: null, result: 'allowed', reason: '', decisions: 0, cost: 0 }]);
    expect(countsOf({ [countField(policy, 'allowed', '')]: '2', [costField(policy, 'allowed', '')]: '-3' })).toEqual([
      { policyId: policy, result: 'allowed', reason: '', decisions: 2, cost: 0 },
    ]);
  });

  it('reads the per-key counts apart from the decisions, which ignore them', () => {
    const key = '5a0c2b9e-7d1f-4e8a-9c3b-2f6d8e1a4b70';
    const hash = {
      [countField(null, 'allowed', '')]: '3',
      [keyField(key, 'decisions')]: '3',
      [keyField(key, 'denied')]: '1',
      [keyField(key, 'other')]: '2',
      [keyField('other-key', 'decisions')]: '4',
      'k|broken': '1',
      'k||decisions': '1',
      [`k|${key}|exploded`]: '1',
      [keyField(key, 'decisions') + 'x']: '1',
      [keyField('nan', 'decisions')]: 'x',
    };
    expect(countsOf(hash)).toEqual([{ policyId: null, result: 'allowed', reason: '', decisions: 3, cost: 0 }]);
    expect(keyCountsOf(hash)).toEqual(new Map([
      [key, { decisions: 3, denied: 1, other: 2 }],
      ['other-key', { decisions: 4, denied: 0, other: 0 }],
    ]));
  });

  it('reads the decisions per route, a path with a `|` included, and skips the markers of the cap and what is not a count', () => {
    const hash = {
      [countField(null, 'allowed', '')]: '4',
      [routeField('GET /v1/items', 'allowed', '')]: '2',
      [routeField('GET /v1/items', 'denied', 'minute')]: '1',
      [routeField('GET /a|b', 'refused', 'key_expired')]: '1',
      [routeField('other', 'allowed', '')]: '1',
      'rr|GET /v1/items': '1',
      'r#': '2',
      'r|GET /x|joy|': '1',
      'r|GET /y|allowed|': 'x',
      'r||allowed|': '1',
    };
    expect(countsOf(hash)).toEqual([{ policyId: null, result: 'allowed', reason: '', decisions: 4, cost: 0 }]);
    expect(routeCountsOf(hash)).toEqual([
      { route: 'GET /v1/items', result: 'allowed', reason: '', decisions: 2 },
      { route: 'GET /v1/items', result: 'denied', reason: 'minute', decisions: 1 },
      { route: 'GET /a|b', result: 'refused', reason: 'key_expired', decisions: 1 },
      { route: 'other', result: 'allowed', reason: '', decisions: 1 },
    ]);
  });

  it('reads every field the tally format builds, with each of its results, and skips the markers beside them', () => {
    const { decisions, units, perRoute, routeKnown, routeCount } = TALLY.fields;
    const results = [...Object.values(TALLY.results), ...Object.values(TALLY.node.results)].map((start) => start.slice(0, -TALLY.part.length));
    expect(USAGE_RESULTS).toEqual(results);
    for (const result of USAGE_RESULTS) {
      // As includes/tally.lua joins them: the field start, the tally's base, the outcome (`<result>|<reason>`).
      const outcome = `${result}${TALLY.part}limit`;
      const hash = new Map([
        [`${decisions}${tallyBase(policy)}${outcome}`, '3'],
        [`${units}${tallyBase(null)}${outcome}`, '5'],
        [`${perRoute}GET /v1/items${TALLY.part}${outcome}`, '3'],
        [`${routeKnown}GET /v1/items`, '1'],
        [routeCount, '1'],
        [`${TALLY.node.fields.written}flush-1`, '1'],
      ]);
      expect(countsOf(hash), result).toEqual([
        { policyId: policy, result, reason: 'limit', decisions: 3, cost: 0 },
        { policyId: null, result, reason: 'limit', decisions: 0, cost: 5 },
      ]);
      expect(routeCountsOf(hash), result).toEqual([{ route: 'GET /v1/items', result, reason: 'limit', decisions: 3 }]);
      expect(keyCountsOf(hash), result).toEqual(new Map());
    }
    const key = '5a0c2b9e-7d1f-4e8a-9c3b-2f6d8e1a4b70';
    const keyHash = Object.fromEntries(TALLY.node.keyKinds.map((kind, i) => [`${TALLY.node.fields.keyCalls}${key}${TALLY.part}${kind}`, String(i + 1)]));
    expect(keyCountsOf(keyHash)).toEqual(new Map([[key, { decisions: 1, denied: 2, other: 3 }]]));
    expect(countsOf(keyHash)).toEqual([]);
    expect(routeCountsOf(keyHash)).toEqual([]);
  });
});
