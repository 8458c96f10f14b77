import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AppError } from '@tollgate/domain';
import { compileRuleSet, type RuleSource } from './compile';
import type { SourcePolicy } from './compile-policies';
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
  tenants: [{ id: 't1', slug: 'acme', status: 'active', planId: 'p1', timeZone: 'Europe/Berlin' }],
  serviceKeys: [{ id: 'k1', prefix: 'tg_test_abcd', hash: 'a'.repeat(64), allTenants: true, tenantIds: [], expiresAt: null }],
  tenantKeys: [{ id: 'k2', prefix: 'tg_test_t_Ab1', hash: 'b'.repeat(64), tenantId: 't1', expiresAt: new Date('2027-01-01T00:00:00Z') }],
});

describe('compileRuleSet', () => {
  it('gives each tenant its plan\'s limits, shortest window first, and service keys with their scope', () => {
    const body = compileRuleSet(source());
    expect(body.tenants['acme']).toEqual({
      id: 't1',
      slug: 'acme',
      status: 'active',
      plan: 'starter',
      timeZone: 'Europe/Berlin',
      limits: [
        { name: 'minute', windowS: 60, limit: 10, algorithm: 'fixed_window' },
        { name: 'daily', windowS: 86_400, limit: 1000, algorithm: 'fixed_window' },
      ],
    });
    expect(body.serviceKeys).toEqual([{ id: 'k1', prefix: 'tg_test_abcd', hash: 'a'.repeat(64), tenantIds: null, expiresAt: null }]);
    expect(body.tenantKeys).toEqual([{ id: 'k2', prefix: 'tg_test_t_Ab1', hash: 'b'.repeat(64), tenant: 'acme', expiresAt: '2027-01-01T00:00:00.000Z' }]);
  });

  it("keeps revoked tenant keys with their tenant's slug, and leaves out those whose tenant is gone", () => {
    const s = source();
    s.revokedTenantKeys = [
      { id: 'k4', prefix: 'tg_test_t_gone', hash: 'd'.repeat(64), tenantId: 'deleted' },
      { id: 'k3', prefix: 'tg_test_t_Old', hash: 'c'.repeat(64), tenantId: 't1' },
    ];
    expect(compileRuleSet(s).revokedTenantKeys).toEqual([{ id: 'k3', prefix: 'tg_test_t_Old', hash: 'c'.repeat(64), tenant: 'acme' }]);
  });

  it('scopes a service key to tenant ids, and a key whose scope is empty to no tenant (never to every tenant)', () => {
    const s = source();
    s.tenants.push({ id: 't0', slug: 'globex', status: 'active', planId: 'p1' });
    s.serviceKeys = [
      { id: 'k1', prefix: 'tg_test_abcd', hash: 'a'.repeat(64), allTenants: false, tenantIds: ['t1', 't0'], expiresAt: null },
      { id: 'k3', prefix: 'tg_test_efgh', hash: 'c'.repeat(64), allTenants: false, tenantIds: [], expiresAt: null },
    ];
    expect(compileRuleSet(s).serviceKeys.map((k) => k.tenantIds)).toEqual([['t0', 't1'], []]);
  });

  it.each([
    ['a zero limit', (s: RuleSource) => (s.plans[0]!.limits[0]!.limit = 0)],
    ['an unknown algorithm', (s: RuleSource) => (s.plans[0]!.limits[0]!.algorithm = 'magic')],
    ['a window of zero seconds', (s: RuleSource) => (s.plans[0]!.limits[0]!.windowS = 0)],
    ['two limits with one name', (s: RuleSource) => (s.plans[0]!.limits[1]!.name = 'daily')],
    ['a tenant on a missing plan', (s: RuleSource) => (s.tenants[0]!.planId = 'nope')],
    ['a tenant key of no tenant', (s: RuleSource) => (s.tenantKeys![0]!.tenantId = 'nope')],
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

describe('compileRuleSet with endpoint policies', () => {
  const policy = (over: Partial<SourcePolicy> = {}): SourcePolicy => ({
    id: 'e1',
    planId: 'p1',
    tenantId: null,
    name: 'items',
    method: 'GET',
    pattern: '/v1/items/*',
    cost: 2,
    scope: 'subject',
    mode: 'enforce',
    failureMode: 'open',
    limits: [{ name: 'minute', windowS: 60, limit: 50, algorithm: 'token_bucket', burst: 60 }],
    ...over,
  });
  const withPolicies = (...policies: SourcePolicy[]): RuleSource => ({ ...source(), policies });

  it('compiles policies by owner and route, and puts them in the diff by route', () => {
    const tenantPolicy = policy({ id: 'e2', planId: null, tenantId: 't1', name: 'acme_items', cost: 1 });
    const before = compileRuleSet(withPolicies(policy({ cost: 1 }), tenantPolicy));
    const after = compileRuleSet(withPolicies(policy(), tenantPolicy));
    // The rule set keeps a policy's every field but its owner (which the map it sits in names).
    const { planId, tenantId, ...compiled } = policy();
    expect(after.policies.plans['starter']!['GET /v1/items/*']).toEqual(compiled);
    expect(Object.keys(after.policies.tenants['acme']!)).toEqual(['GET /v1/items/*']);
    expect(diffJson(before, after)).toEqual([{ path: 'policies.plans.starter.GET /v1/items/*.cost', before: 1, after: 2 }]);
  });

  it.each<[string, SourcePolicy[], RegExp]>([
    ['an invalid pattern', [policy({ pattern: '/v1/items*' })], /whole segment/],
    ['a regular expression for a pattern', [policy({ pattern: '/v1/items/[0-9]+' })], /no regular expressions/],
    ['an unknown method', [policy({ method: 'FETCH' })], /method/],
    ['two policies of one plan for one route', [policy(), policy({ id: 'e2', name: 'other' })], /two policies for GET \/v1\/items\/\*/],
    ['a policy of an unknown plan', [policy({ planId: 'gone' })], /unknown plan/],
    ['a policy of both a plan and a tenant', [policy({ tenantId: 't1' })], /exactly one plan or tenant/],
    ['a sliding log the engine cannot hold', [policy({ limits: [{ name: 'daily', windowS: 86_400, limit: 20_000, algorithm: 'sliding_log' }] })], /policies\.plans\.starter\.GET \/v1\/items\/\*\.limits\.0: .*10000/],
    ['a qualified limit name over the engine\'s 32 characters', [policy({ name: 'a_long_policy_nm', limits: [{ name: 'a_rather_long_limit_nm', windowS: 60, limit: 5, algorithm: 'fixed_window' }] })], /name/],
    ['a cost above a limit\'s capacity', [policy({ cost: 61 })], /costs 61, more than limit minute can ever hold \(60\)/],
    ['two policies a tenant gets with one name', [policy(), policy({ id: 'e2', planId: null, tenantId: 't1', pattern: '/v1/other' })], /tenant acme: policies .* are both named items/],
  ])('refuses %s with rule_set_invalid', (_label, policies, message) => {
    expectRefused(withPolicies(...policies), message);
  });

  it('refuses a policy limit whose name in check answers is already a limit of the tenant', () => {
    const s = withPolicies(policy({ name: 'x', limits: [{ name: 'y', windowS: 60, limit: 5, algorithm: 'fixed_window' }] }));
    s.plans[0]!.limits.push({ name: 'x-y', windowS: 60, limit: 5, algorithm: 'fixed_window' });
    expectRefused(s, /limit x-y of policy GET \/v1\/items\/\* has the name of limit x-y/);
  });

  function expectRefused(s: RuleSource, message: RegExp): void {
    let error: unknown;
    try {
      compileRuleSet(s);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('rule_set_invalid');
    expect((error as AppError).message).toMatch(message);
  }

  it('lets a tenant\'s policy replace its plan\'s policy of the same route, even under the same name', () => {
    const body = compileRuleSet(withPolicies(policy(), policy({ id: 'e2', planId: null, tenantId: 't1', cost: 1 })));
    expect(body.policies.tenants['acme']!['GET /v1/items/*']!.cost).toBe(1);
  });
});

describe('compileRuleSet: the same rows in any order', () => {
  // A catalogue as Postgres may hand it over: two plans, three tenants (one with overrides), scoped and unscoped
  // service keys, tenant keys, plan and tenant policies. Every list is shuffled; the rule set must not move.
  const rows = (): RuleSource => ({
    plans: [
      { id: 'p1', slug: 'starter', limits: [{ name: 'minute', windowS: 60, limit: 10, algorithm: 'fixed_window' }, { name: 'daily', windowS: 86_400, limit: 1000, algorithm: 'fixed_window' }] },
      { id: 'p2', slug: 'pro', limits: [{ name: 'minute', windowS: 60, limit: 100, algorithm: 'token_bucket', burst: 20 }] },
    ],
    tenants: [
      { id: 't1', slug: 'acme', status: 'active', planId: 'p1' },
      { id: 't2', slug: 'globex', status: 'suspended', planId: 'p2' },
      { id: 't3', slug: 'initech', status: 'active', planId: 'p1', overrides: [{ name: 'hourly', windowS: 3600, limit: 300, algorithm: 'sliding_window' }, { name: 'minute', windowS: 60, limit: 20, algorithm: 'fixed_window' }] },
    ],
    serviceKeys: ['s3', 's1', 's2', 's4'].map((id, i) => ({ id, prefix: `tg_test_${id}`, hash: String(i).repeat(64), allTenants: i % 2 === 0, tenantIds: ['t3', 't1'], expiresAt: null })),
    tenantKeys: ['k2', 'k1', 'k3'].map((id, i) => ({ id, prefix: `tg_test_t_${id}`, hash: String(i + 5).repeat(64), tenantId: `t${i + 1}`, expiresAt: null })),
    policies: [
      { id: 'e1', planId: 'p1', tenantId: null, name: 'items', method: 'GET', pattern: '/v1/items/*', cost: 1, scope: 'tenant', mode: 'enforce', failureMode: 'open', limits: [{ name: 'minute', windowS: 60, limit: 5, algorithm: 'fixed_window' }] },
      { id: 'e2', planId: 'p1', tenantId: null, name: 'orders', method: 'POST', pattern: '/v1/orders', cost: 1, scope: 'tenant', mode: 'shadow', failureMode: 'open', limits: [] },
      { id: 'e3', planId: 'p2', tenantId: null, name: 'items', method: 'GET', pattern: '/v1/items/*', cost: 1, scope: 'tenant', mode: 'enforce', failureMode: 'closed', limits: [] },
      { id: 'e4', planId: null, tenantId: 't1', name: 'acme_items', method: 'GET', pattern: '/v1/items/*', cost: 1, scope: 'subject', mode: 'enforce', failureMode: 'open', limits: [] },
      { id: 'e5', planId: null, tenantId: 't3', name: 'exports', method: 'GET', pattern: '/v1/exports', cost: 1, scope: 'tenant', mode: 'off', failureMode: 'open', limits: [] },
    ],
  });
  const shuffled = <T>(list: readonly T[], keys: readonly number[]): T[] =>
    list.map((item, i) => ({ item, key: keys[i % keys.length]! * 1000 + i })).sort((a, b) => a.key - b.key).map(({ item }) => item);

  it('compiles to the same JSON, byte for byte, whatever order the rows, keys, scopes and overrides come in', () => {
    const expected = JSON.stringify(compileRuleSet(rows()));
    fc.assert(
      fc.property(fc.array(fc.nat(50), { minLength: 1, maxLength: 8 }), (keys) => {
        const s = rows();
        const mixed: RuleSource = {
          plans: shuffled(s.plans, keys).map((p) => ({ ...p, limits: shuffled(p.limits, keys) })),
          tenants: shuffled(s.tenants, [...keys].reverse()).map((t) => ({ ...t, overrides: t.overrides && shuffled(t.overrides, keys) })),
          serviceKeys: shuffled(s.serviceKeys, keys).map((k) => ({ ...k, tenantIds: shuffled(k.tenantIds, keys) })),
          tenantKeys: shuffled(s.tenantKeys!, [...keys].reverse()),
          policies: shuffled(s.policies!, keys),
        };
        expect(JSON.stringify(compileRuleSet(mixed))).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('lists keys by id and tenants and policy owners by name', () => {
    const body = compileRuleSet(rows());
    expect(body.serviceKeys.map((k) => k.id)).toEqual(['s1', 's2', 's3', 's4']);
    expect(body.tenantKeys.map((k) => k.id)).toEqual(['k1', 'k2', 'k3']);
    expect(Object.keys(body.tenants)).toEqual(['acme', 'globex', 'initech']);
    expect(Object.keys(body.policies.plans)).toEqual(['pro', 'starter']);
    expect(Object.keys(body.policies.plans['starter']!)).toEqual(['GET /v1/items/*', 'POST /v1/orders']);
  });
});
