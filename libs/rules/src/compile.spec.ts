import { describe, expect, it } from 'vitest';
import { AppError } from '@tollgate/domain';
import { compileRuleSet, type RuleSource } from './compile';
import { diffJson } from './diff';

const source = (): RuleSource => ({
  plans: [
    {
      id: 'p1',
      slug: 'starter',
      limits: [
        { name: 'daily', windowS: 86_400, limit: 1000, algorithm: 'fixed_window' },
        { name: 'minute', windowS: 60, limit: 10, algorithm: 'fixed_window' },
      ],
    },
  ],
  tenants: [{ id: 't1', slug: 'acme', status: 'active', planId: 'p1' }],
  serviceKeys: [{ id: 'k1', prefix: 'tg_test_abcd', hash: 'a'.repeat(64), tenantScope: [], expiresAt: null }],
});

describe('compileRuleSet', () => {
  it('gives each tenant its plan\'s limits, shortest window first, and service keys with their scope', () => {
    const body = compileRuleSet(source());
    expect(body.tenants['acme']).toEqual({
      id: 't1',
      slug: 'acme',
      status: 'active',
      plan: 'starter',
      limits: [
        { name: 'minute', windowS: 60, limit: 10, algorithm: 'fixed_window' },
        { name: 'daily', windowS: 86_400, limit: 1000, algorithm: 'fixed_window' },
      ],
    });
    expect(body.serviceKeys).toEqual([{ id: 'k1', prefix: 'tg_test_abcd', hash: 'a'.repeat(64), tenants: null, expiresAt: null }]);
  });

  it.each([
    ['a zero limit', (s: RuleSource) => (s.plans[0]!.limits[0]!.limit = 0)],
    ['an unknown algorithm', (s: RuleSource) => (s.plans[0]!.limits[0]!.algorithm = 'magic')],
    ['a window of zero seconds', (s: RuleSource) => (s.plans[0]!.limits[0]!.windowS = 0)],
    ['two limits with one name', (s: RuleSource) => (s.plans[0]!.limits[1]!.name = 'daily')],
    ['a tenant on a missing plan', (s: RuleSource) => (s.tenants[0]!.planId = 'nope')],
  ])('refuses %s with rule_set_invalid', (_label, spoil) => {
    const s = source();
    spoil(s);
    expect(() => compileRuleSet(s)).toThrow(AppError);
    try {
      compileRuleSet(s);
    } catch (err) {
      expect((err as AppError).code).toBe('rule_set_invalid');
      expect((err as AppError).status).toBe(400);
    }
  });
});

describe('diffJson', () => {
  it('lists changed, added and removed leaves by path', () => {
    expect(diffJson({ a: { b: 1, c: [1, 2] }, gone: true }, { a: { b: 2, c: [1, 2, 3] }, added: 'x' })).toEqual([
      { path: 'a.b', before: 1, after: 2 },
      { path: 'a.c.2', after: 3 },
      { path: 'added', after: 'x' },
      { path: 'gone', before: true },
    ]);
    expect(diffJson({ same: [1] }, { same: [1] })).toEqual([]);
  });
});

describe('compileRuleSet with the engine\'s own checks', () => {
  it('refuses a sliding log above the engine\'s 10,000 units', () => {
    const s = source();
    s.plans[0]!.limits[0] = { name: 'daily', windowS: 86_400, limit: 20_000, algorithm: 'sliding_log' };
    expect(() => compileRuleSet(s)).toThrow(/rule set refused: tenants\.acme\.limits\.1/);
  });
});

describe('compileRuleSet with tenant overrides', () => {
  it('replaces the plan limit of the same name and adds limits of new names', () => {
    const s = source();
    s.tenants[0]!.overrides = [
      { name: 'minute', windowS: 60, limit: 99, algorithm: 'gcra', burst: 5 },
      { name: 'second', windowS: 1, limit: 2, algorithm: 'token_bucket', burst: null },
    ];
    expect(compileRuleSet(s).tenants['acme']!.limits).toEqual([
      { name: 'second', windowS: 1, limit: 2, algorithm: 'token_bucket' },
      { name: 'minute', windowS: 60, limit: 99, algorithm: 'gcra', burst: 5 },
      { name: 'daily', windowS: 86_400, limit: 1000, algorithm: 'fixed_window' },
    ]);
  });
});
