import { describe, expect, it } from 'vitest';
import type { LimitRule } from './contract';
import { CostExceedsCapacityError, InvalidRuleError } from './errors';
import { resolveRequest, resolveRules } from './rules';

const minute: LimitRule = { name: 'minute', algorithm: 'fixed_window', limit: 5, windowMs: 60_000 };
const bucket: LimitRule = { name: 'bucket', algorithm: 'token_bucket', limit: 1, windowMs: 1000, burst: 3 };

describe('resolveRules', () => {
  it('resolves an array once and hands out the same resolved rules for it', () => {
    const rules = [minute, bucket];
    const first = resolveRules(rules);
    expect(first.rules.map((r) => r.capacity)).toEqual([5, 3]);
    expect(resolveRules(rules)).toBe(first);
    expect(resolveRequest('consume', { tenantId: 't', rules }, 1)).toBe(first.rules);
  });

  it('resolves a new array again, even with the same rules, and validates it', () => {
    const first = resolveRules([minute]);
    expect(resolveRules([minute])).not.toBe(first);
    expect(() => resolveRules([{ ...minute, limit: 0 }])).toThrow(InvalidRuleError);
  });

  it('resolves an array again when its elements were replaced or added to', () => {
    const rules: LimitRule[] = [minute];
    const first = resolveRules(rules);
    rules.push(bucket);
    expect(resolveRules(rules).rules).toHaveLength(2);
    rules[0] = { ...minute, limit: 7 };
    expect(resolveRules(rules).rules[0]?.capacity).toBe(7);
    expect(first.rules).toHaveLength(1);
  });

  it('keeps the order of errors: a rule before a duplicate name is checked against the cost first', () => {
    const rules = [minute, { ...minute, limit: 100 }];
    expect(() => resolveRequest('consume', { tenantId: 't', rules }, 6)).toThrow(CostExceedsCapacityError);
    expect(() => resolveRequest('consume', { tenantId: 't', rules }, 1)).toThrow(expect.objectContaining({ reason: 'duplicate_name', field: 'rules.1.name' }));
  });
});
