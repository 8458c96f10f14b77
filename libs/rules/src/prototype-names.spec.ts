import { describe, expect, it } from 'vitest';
import { compileRuleSet, type RuleSource } from './compile';
import { effectivePolicies } from './compile-policies';
import { diffJson } from './diff';
import { buildPolicyIndex, matchPolicy } from './policy-matcher';

// Names of Object.prototype's members as slugs and names: the rule set indexes plans, tenants and policies by them,
// and a plain object looked up by `constructor` finds Object itself.
const limit = (name: string) => ({ name, windowS: 60, limit: 10, algorithm: 'fixed_window' });
const policy = (id: string, owner: { planId?: string; tenantId?: string }, name: string, pattern: string) => ({
  id,
  planId: owner.planId ?? null,
  tenantId: owner.tenantId ?? null,
  name,
  method: 'GET',
  pattern,
  cost: 1,
  scope: 'tenant',
  mode: 'enforce',
  failureMode: 'open',
  limits: [limit('constructor')],
});

const source = (): RuleSource => ({
  plans: [
    { id: 'p1', slug: 'constructor', limits: [limit('constructor')] },
    { id: 'p2', slug: 'plain', limits: [limit('minute')] },
  ],
  tenants: [
    { id: 't1', slug: 'constructor', status: 'active', planId: 'p1' },
    { id: 't2', slug: 'acme', status: 'active', planId: 'p2' },
  ],
  serviceKeys: [],
  policies: [policy('x1', { planId: 'p1' }, 'constructor', '/constructor'), policy('x2', { tenantId: 't1' }, 'own', '/own/*')],
});

describe('prototype member names as slugs and names', () => {
  it('compiles plans, tenants, limits and policies named constructor like any other, and pollutes nothing', () => {
    const body = compileRuleSet(source());
    expect(Object.keys(body.tenants).sort()).toEqual(['acme', 'constructor']);
    expect(body.tenants['constructor']).toMatchObject({ slug: 'constructor', plan: 'constructor', limits: [{ name: 'constructor' }] });
    expect(Object.keys(body.policies.plans)).toEqual(['constructor']);
    expect(Object.keys(body.policies.plans['constructor']!)).toEqual(['GET /constructor']);
    expect(Object.keys(body.policies.tenants)).toEqual(['constructor']);
    expect(Object.keys(Object)).toEqual([]);
    expect(Object.keys(Object.prototype)).toEqual([]);
  });

  it('finds the policies of a tenant and its plan by name, and none for names that have none', () => {
    const body = compileRuleSet(source());
    expect(Object.keys(effectivePolicies(body.policies, 'constructor', 'constructor')).sort()).toEqual(['GET /constructor', 'GET /own/*']);
    for (const name of ['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf']) {
      expect(effectivePolicies(body.policies, name === 'constructor' ? 'acme' : name, name === 'constructor' ? 'plain' : name)).toEqual({});
      expect(effectivePolicies({ plans: {}, tenants: {} }, name, name)).toEqual({});
    }
    const index = buildPolicyIndex(body.policies);
    expect(matchPolicy(index, { tenant: 'constructor', plan: 'constructor' }, 'GET', '/constructor')?.name).toBe('constructor');
    expect(matchPolicy(index, { tenant: 'toString', plan: 'hasOwnProperty' }, 'GET', '/constructor')).toBeNull();
  });

  it('diffs versions that add or remove a name of a prototype member as a plain addition or removal', () => {
    const before = { tenants: { acme: { limit: 1 } } };
    for (const name of ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__']) {
      const after = JSON.parse(`{"tenants":{"acme":{"limit":1},${JSON.stringify(name)}:{"limit":2}}}`) as unknown;
      expect(diffJson(before, after)).toEqual([{ path: `tenants.${name}`, after: { limit: 2 } }]);
      expect(diffJson(after, before)).toEqual([{ path: `tenants.${name}`, before: { limit: 2 } }]);
    }
  });
});
