import { describe, expect, it } from 'vitest';
import { costField, countField, countsOf, NO_POLICY } from './fields';

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
});
