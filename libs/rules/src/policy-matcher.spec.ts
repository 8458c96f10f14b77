import { describe, expect, it } from 'vitest';
import type { CompiledPolicies, CompiledPolicy } from '@tollgate/domain';
import { buildPolicyIndex, matchPolicy } from './policy-matcher';

const policy = (name: string, method: string, pattern: string, mode: CompiledPolicy['mode'] = 'enforce'): CompiledPolicy => ({
  id: name,
  name,
  method: method as CompiledPolicy['method'],
  pattern,
  cost: 1,
  scope: 'tenant',
  mode,
  failureMode: 'open',
  limits: [{ name: 'minute', windowS: 60, limit: 10, algorithm: 'fixed_window' }],
});

const table = (...policies: CompiledPolicy[]) => Object.fromEntries(policies.map((p) => [`${p.method} ${p.pattern}`, p]));

const plan: CompiledPolicies = {
  plans: {
    starter: table(
      policy('everything', '*', '/*'),
      policy('items', 'GET', '/v1/items/*'),
      policy('item_one', 'GET', '/v1/items/*/parts'),
      policy('item_42', 'GET', '/v1/items/42'),
      policy('item_any', '*', '/v1/items/42'),
      policy('writes', 'POST', '/v1/items'),
      policy('root', 'GET', '/'),
      policy('mid', 'GET', '/v1/*/export'),
    ),
  },
  tenants: { acme: table(policy('acme_items', 'GET', '/v1/items/*'), policy('acme_off', 'POST', '/v1/items', 'off')) },
};
const index = buildPolicyIndex(plan);
const match = (method: string, path: string, tenant = 'other') => matchPolicy(index, { tenant, plan: 'starter' }, method, path)?.name ?? null;

describe('matchPolicy: the most specific policy wins', () => {
  it.each([
    ['GET', '/v1/items/42', 'item_42', 'a literal beats * in the same place'],
    ['GET', '/v1/items/7', 'items', 'a last * takes one segment'],
    ['GET', '/v1/items/7/parts', 'item_one', '* as a middle segment beats a last * that would take the rest'],
    ['GET', '/v1/items/7/parts/9', 'items', 'a last * takes the rest of the path'],
    ['DELETE', '/v1/items/42', 'item_any', 'a method * applies when no policy names the method'],
    ['POST', '/v1/items', 'writes', 'a whole literal pattern'],
    ['POST', '/v1/items/', 'writes', 'empty segments are ignored'],
    ['GET', '/v1/items/42?expand=1#top', 'item_42', 'the query and fragment are ignored'],
    ['get', '/v1/items/42', 'item_42', 'methods are matched in upper case'],
    ['GET', '/', 'root', 'the root pattern'],
    ['GET', '/v1/reports/export', 'mid', 'a middle * in a pattern of its own'],
    ['GET', '/v2/anything', 'everything', 'the catch-all /* under every more specific pattern'],
    ['GET', '/v1/items', 'everything', 'a last * needs at least one segment'],
  ])('%s %s → %s (%s)', (method, path, expected) => {
    expect(match(method, path)).toBe(expected);
  });

  it('prefers the path over the method: * /v1/items/42 beats GET /v1/items/*', () => {
    expect(match('PUT', '/v1/items/42')).toBe('item_any');
    expect(match('GET', '/v1/items/43')).toBe('items');
  });

  it('prefers a tenant\'s own policy to its plan\'s of the same route, and only of the same route', () => {
    expect(match('GET', '/v1/items/7', 'acme')).toBe('acme_items');
    expect(match('GET', '/v1/items/42', 'acme')).toBe('item_42');
  });

  it('returns a policy in mode off: a tenant switches off its plan\'s policy by overriding it', () => {
    const found = matchPolicy(index, { tenant: 'acme', plan: 'starter' }, 'POST', '/v1/items');
    expect(found).toMatchObject({ name: 'acme_off', mode: 'off' });
  });

  it('answers null when nothing matches or the owners have no policies', () => {
    expect(matchPolicy(buildPolicyIndex({ plans: {}, tenants: {} }), { tenant: 'a', plan: 'b' }, 'GET', '/x')).toBeNull();
    const narrow = buildPolicyIndex({ plans: { p: table(policy('only', 'GET', '/v1/x')) }, tenants: {} });
    expect(matchPolicy(narrow, { tenant: 'a', plan: 'p' }, 'GET', '/v1/y')).toBeNull();
    expect(matchPolicy(narrow, { tenant: 'a', plan: 'p' }, 'POST', '/v1/x')).toBeNull();
  });

  it('backtracks when the literal branch dead-ends deeper down', () => {
    const idx = buildPolicyIndex({ plans: { p: table(policy('lit', 'GET', '/a/b/c'), policy('wild', 'GET', '/a/*/d')) }, tenants: {} });
    expect(matchPolicy(idx, { tenant: 't', plan: 'p' }, 'GET', '/a/b/d')?.name).toBe('wild');
  });
});
