import { rateLimitPolicy, type Region, ruleSetSchema } from '@tollgate/domain';
import { compileRuleSet, type RuleSource } from '@tollgate/rules';
import { describe, expect, it } from 'vitest';
import { EnforcedRuleSet } from './enforced-rule-set';

const limit = (name: string, windowS: number, value: number) => ({ name, windowS, limit: value, algorithm: 'fixed_window' });
const policy = (id: string, name: string, method: string, pattern: string, extra: Partial<{ cost: number; mode: string; scope: string; regionScope: string }> = {}) => ({
  id,
  planId: 'p1',
  tenantId: null,
  name,
  method,
  pattern,
  cost: extra.cost ?? 1,
  scope: extra.scope ?? 'tenant',
  mode: extra.mode ?? 'enforce',
  failureMode: 'open',
  ...(extra.regionScope ? { regionScope: extra.regionScope } : {}),
  limits: [limit('minute', 60, 5)],
});

const source = (): RuleSource => ({
  plans: [{ id: 'p1', slug: 'starter', limits: [limit('minute', 60, 10), { ...limit('daily', 86_400, 1000), calendar: 'day' as const }] }],
  tenants: [
    { id: 't1', slug: 'acme', status: 'active', planId: 'p1', timeZone: 'Europe/Berlin' },
    { id: 't2', slug: 'constructor', status: 'active', planId: 'p1' },
  ],
  serviceKeys: [{ id: 'k1', prefix: 'tg_test_abcd', hash: 'a'.repeat(64), allTenants: true, tenantIds: [], expiresAt: null }],
  tenantKeys: [{ id: 'k2', prefix: 'tg_test_t_Ab1', hash: 'b'.repeat(64), tenantId: 't2', expiresAt: null }],
  policies: [
    policy('pol1', 'items', 'GET', '/v1/items/*', { cost: 3, scope: 'subject' }),
    policy('pol2', 'quiet', 'POST', '/v1/quiet', { mode: 'off' }),
    policy('pol3', 'trial', '*', '/v1/trial', { mode: 'shadow' }),
    policy('pol4', 'shared', 'GET', '/v1/shared', { regionScope: 'global' }),
  ],
});

function enforced(region: Region | null = null): EnforcedRuleSet {
  const ruleSet = ruleSetSchema.parse({ version: 7, compiledAt: '2026-12-01T10:00:00.000Z', ...compileRuleSet(source()) });
  return new EnforcedRuleSet(ruleSet, { installation: 'i1', version: 7, compiledAt: ruleSet.compiledAt }, 2, region);
}

describe('EnforcedRuleSet: one lookup a check, nothing converted', () => {
  it('finds tenants and keys by slug and hash, prototype member names included', () => {
    const rules = enforced();
    expect(rules.tenant('acme')?.id).toBe('t1');
    expect(rules.tenant('constructor')?.id).toBe('t2');
    for (const name of ['toString', 'hasOwnProperty', '__proto__', 'valueOf']) expect(rules.tenant(name)).toBeUndefined();
    expect(rules.serviceKey('a'.repeat(64))?.id).toBe('k1');
    expect(rules.tenantKey('b'.repeat(64))?.tenant).toBe('constructor');
    expect(rules.tenantKey('constructor')).toBeUndefined();
  });

  it('decides the tenant\'s limits alone for an endpoint no policy matches, one that is `off`, or one that names no route', () => {
    const rules = enforced();
    const acme = rules.tenant('acme')!;
    const own = rules.limitSetFor(acme, 'GET /v1/other');
    expect(own.policy).toBeNull();
    expect(own.prepared.rules.map((r) => r.name)).toEqual(['minute', 'daily']);
    // This node's share for the `local` failure mode: each limit ÷ 2 nodes.
    expect(own.localShare.rules.map((r) => r.limit)).toEqual([5, 500]);
    expect(own.tenantRuleCount).toBe(2);
    expect(own.windowS).toEqual([60, 86_400]);
    expect(own.costWeight).toBe(1);
    // The daily window follows the tenant's calendar day.
    expect(own.prepared.rules[1]).toMatchObject({ calendar: { unit: 'day', timeZone: 'Europe/Berlin' } });
    expect(rules.limitSetFor(acme, 'POST /v1/quiet')).toBe(own);
    expect(rules.limitSetFor(acme, 'not a route')).toBe(own);
  });

  it('decides a policy with the tenant\'s limits first, its own named after it, its weight and its RateLimit-Policy', () => {
    const rules = enforced();
    const acme = rules.tenant('acme')!;
    const limitSet = rules.limitSetFor(acme, 'GET /v1/items/42?page=2');
    expect(limitSet.policy?.name).toBe('items');
    expect(limitSet.prepared.rules.map((r) => r.name)).toEqual(['minute', 'daily', 'items-minute']);
    expect(limitSet.tenantRuleCount).toBe(2);
    expect(limitSet.windowS).toEqual([60, 86_400, 60]);
    expect(limitSet.limits).toEqual([10, 1000, 5]);
    expect(limitSet.costWeight).toBe(3);
    expect(limitSet.rateLimitPolicy).toBe(rateLimitPolicy([{ name: 'minute', limit: 10, windowS: 60 }, { name: 'daily', limit: 1000, windowS: 86_400 }, { name: 'items-minute', limit: 5, windowS: 60 }]));
    expect(rules.limitSetFor(acme, 'GET /v1/trial').policy?.mode).toBe('shadow');
  });

  it('makes a limit set once per tenant and policy: asked again, or for another path of the same policy, it is the same object', () => {
    const rules = enforced();
    const acme = rules.tenant('acme')!;
    const first = rules.limitSetFor(acme, 'GET /v1/items/1');
    expect(rules.limitSetFor(acme, 'GET /v1/items/1')).toBe(first);
    expect(rules.limitSetFor(acme, 'GET /v1/items/2')).toBe(first);
    expect(rules.limitSetFor(rules.tenant('constructor')!, 'GET /v1/items/1')).not.toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.prepared)).toBe(true);
    expect(rules.endpointCacheSize().entries).toBe(3);
  });

  it('decides a policy that is one quota across regions at this region\'s share, and the tenant\'s own limits whole', () => {
    const us: Region = { name: 'us', index: 1, names: ['eu', 'us', 'ap'] };
    const shared = enforced(us).limitSetFor(enforced(us).tenant('acme')!, 'GET /v1/shared');
    expect(shared.prepared.rules.map((r) => [r.name, r.limit, r.regions])).toEqual([
      ['minute', 10, undefined],
      ['daily', 1000, undefined],
      ['shared-minute', 5, { index: 1, count: 3 }],
    ]);
    // The answer's limits and RateLimit-Policy are the quota's; the local failure mode's share is of the region's.
    expect(shared.limits).toEqual([10, 1000, 5]);
    expect(shared.localShare.rules[2]).toMatchObject({ limit: 2, regions: { index: 1, count: 3 } });
    // One region (REGION, REGIONS unset): the whole limit; a policy of each region is never shared.
    expect(enforced().limitSetFor(enforced().tenant('acme')!, 'GET /v1/shared').prepared.rules[2]).not.toHaveProperty('regions');
    expect(enforced(us).limitSetFor(enforced(us).tenant('acme')!, 'GET /v1/items/1').prepared.rules[2]).not.toHaveProperty('regions');
  });
});
