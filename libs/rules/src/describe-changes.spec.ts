import type { RuleSetBody, RuleSnapshot } from '@tollgate/domain';
import { describe, expect, it } from 'vitest';
import { describeRuleSetChanges, type RuleSetSide, summarizeChanges } from './describe-changes';

// Rule sets as the API compiles them (two tenants on `starter`, one on `pro`, a policy, keys), then changed the way
// the admin API changes them; each test reads what the diff panel would say.
const ACME = '11111111-1111-4111-8111-111111111111';
const BETA = '22222222-2222-4222-8222-222222222222';
const GAMMA = '33333333-3333-4333-8333-333333333333';
const STARTER = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const PRO = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
const HASH = (n: number) => n.toString(16).padStart(64, '0');

const minute = (limit: number) => ({ name: 'minute', windowS: 60, limit, algorithm: 'fixed_window' as const });
const daily = (limit: number) => ({ name: 'daily', windowS: 86_400, limit, algorithm: 'fixed_window' as const, calendar: 'day' as const });
const tenant = (id: string, slug: string, plan: string, limits = [minute(10), daily(1000)]) => ({ id, slug, plan, status: 'active' as const, timeZone: 'UTC', limits });
const tenantKey = (n: number, slug: string) => ({ id: `key-${n}`, prefix: `tg_live_t_${n}`, hash: HASH(n), tenant: slug, expiresAt: null });
const serviceKey = (n: number) => ({ id: `svc-${n}`, prefix: `tg_live_s_${n}`, hash: HASH(1000 + n), tenantIds: null, expiresAt: null });
const items = { id: 'p1', name: 'items', method: 'GET' as const, pattern: '/v1/items/*', cost: 1, scope: 'tenant' as const, mode: 'enforce' as const, failureMode: 'open' as const, limits: [minute(100)] };

function base(): RuleSetSide {
  const compiled: RuleSetBody = {
    tenants: { acme: tenant(ACME, 'acme', 'starter'), beta: tenant(BETA, 'beta', 'starter'), gamma: tenant(GAMMA, 'gamma', 'pro', [minute(100)]) },
    serviceKeys: [serviceKey(1)],
    tenantKeys: [tenantKey(1, 'acme'), tenantKey(2, 'beta')],
    revokedTenantKeys: [],
    policies: { plans: { starter: { 'GET /v1/items/*': items } }, tenants: {} },
  };
  const source: RuleSnapshot = {
    plans: [
      { id: STARTER, slug: 'starter', name: 'Starter', limits: [{ id: 'l1', ...minute(10), burst: null, calendar: null }, { id: 'l2', ...daily(1000), burst: null }] },
      { id: PRO, slug: 'pro', name: 'Pro', limits: [{ id: 'l3', ...minute(100), burst: null, calendar: null }] },
    ],
    tenants: [
      { id: ACME, planId: STARTER, status: 'active', overrides: [] },
      { id: BETA, planId: STARTER, status: 'active', overrides: [] },
      { id: GAMMA, planId: PRO, status: 'active', overrides: [] },
    ],
    policies: [],
  };
  return { compiled, source };
}

/** `base()` changed by `edit` (on a deep copy). */
function changed(edit: (side: RuleSetSide) => void): RuleSetSide {
  const side = structuredClone(base());
  edit(side);
  return side;
}

const tenantsOn = (side: RuleSetSide, plan: string) => Object.values(side.compiled.tenants).filter((t) => t.plan === plan);

/** The lines of going from `before` to `after`. */
const lines = (before: RuleSetSide | null, after: RuleSetSide) => describeRuleSetChanges(before, after).map((c) => c.text);

describe('rule set changes as sentences', () => {
  it('says nothing of two equal rule sets', () => {
    expect(lines(base(), base())).toEqual([]);
  });

  it('names a plan limit once, on the plan, however many tenants it reaches', () => {
    const after = changed((s) => {
      s.source!.plans[0]!.limits[0]!.limit = 20;
      for (const t of tenantsOn(s, 'starter')) t.limits[0]!.limit = 20;
    });
    expect(lines(base(), after)).toEqual(['starter: minute 10 → 20']);
  });

  it('tells a tenant\'s override from its plan\'s limit', () => {
    const after = changed((s) => {
      s.source!.tenants[0]!.overrides = [{ ...minute(50), burst: null, calendar: null }];
      s.compiled.tenants.acme!.limits[0]!.limit = 50;
    });
    expect(lines(base(), after)).toEqual(['acme: override minute added (50 per minute)']);
  });

  it('says a limit\'s period, algorithm and burst as words, and added and removed limits', () => {
    const after = changed((s) => {
      const limits = s.source!.plans[0]!.limits;
      limits[0] = { ...limits[0]!, windowS: 120, algorithm: 'token_bucket', burst: 30 };
      limits.splice(1, 1, { id: 'l9', name: 'hourly', windowS: 3600, limit: 500, algorithm: 'sliding_window', burst: null, calendar: null });
    });
    expect(lines(base(), after)).toEqual([
      'starter: minute per minute → per 2 minutes, Fixed window → Token bucket, burst none → 30',
      'starter: hourly added (500 per hour, sliding window)',
      'starter: daily removed',
    ]);
  });

  it('moves, suspends and resumes tenants, and names tenants and plans added and removed', () => {
    const after = changed((s) => {
      s.compiled.tenants.acme = { ...s.compiled.tenants.acme!, plan: 'pro', limits: [minute(100)] };
      s.source!.tenants[0]!.planId = PRO;
      s.compiled.tenants.beta!.status = 'suspended';
      s.compiled.tenants.beta!.timeZone = 'Europe/Berlin';
      delete s.compiled.tenants.gamma;
      s.source!.tenants.splice(2, 1);
      s.compiled.tenants.delta = tenant('44444444-4444-4444-8444-444444444444', 'delta', 'enterprise', [minute(1000)]);
      s.source!.plans.push({ id: 'cccccccc-cccc-4ccc-8ccc-cccccccccccc', slug: 'enterprise', name: 'Enterprise', limits: [{ id: 'l5', ...minute(1000), burst: null, calendar: null }] });
    });
    expect(lines(base(), after)).toEqual([
      'plan enterprise added: minute 1,000 per minute',
      'tenant acme moved to plan pro (from starter)',
      'tenant beta suspended',
      'tenant beta: time zone UTC → Europe/Berlin',
      'tenant delta added on plan enterprise',
      'tenant gamma removed',
    ]);
    expect(lines(after, base())).toContain('tenant beta resumed');
  });

  it('groups keys by tenant and counts them, never showing a hash or a prefix', () => {
    const after = changed((s) => {
      s.compiled.tenantKeys = [tenantKey(2, 'beta'), tenantKey(3, 'acme'), tenantKey(4, 'acme'), tenantKey(5, 'acme')];
      s.compiled.serviceKeys = [{ ...serviceKey(1), expiresAt: '2026-12-02T10:00:00.000Z' }, serviceKey(2)];
    });
    const sentences = lines(base(), after);
    expect(sentences).toEqual(['3 keys added to acme, 1 revoked', '1 service key added, 1 set to expire']);
    expect(sentences.join(' ')).not.toMatch(/[0-9a-f]{16}|tg_live/);
    const revoked = changed((s) => void (s.compiled.tenantKeys = [tenantKey(2, 'beta')]));
    expect(lines(base(), revoked)).toEqual(['1 key of acme revoked']);
    // Kept among the revoked keys (to count its checks under acme): still one change, said once.
    const kept = changed((s) => {
      s.compiled.tenantKeys = [tenantKey(2, 'beta')];
      s.compiled.revokedTenantKeys = [{ id: 'key-1', prefix: 'tg_live_t_1', hash: HASH(1), tenant: 'acme' }];
    });
    expect(lines(base(), kept)).toEqual(['1 key of acme revoked']);
  });

  it('says what changed in a policy: its settings, its limits, and policies added and removed', () => {
    const after = changed((s) => {
      const policy = s.compiled.policies.plans.starter!['GET /v1/items/*']!;
      policy.cost = 2;
      policy.mode = 'shadow';
      policy.limits[0]!.limit = 200;
      s.compiled.policies.tenants.acme = { 'POST /v1/orders': { ...items, id: 'p2', name: 'orders', method: 'POST', pattern: '/v1/orders', limits: [] } };
    });
    expect(lines(base(), after)).toEqual([
      'policy items: cost 1 → 2, mode enforce → shadow',
      'policy items: minute 100 → 200',
      'policy orders added to tenant acme: POST /v1/orders, 0 limits',
    ]);
    const gone = changed((s) => void (s.compiled.policies.plans = {}));
    expect(lines(base(), gone)).toEqual(['policy items removed from plan starter: GET /v1/items/*']);
  });

  it('says a version\'s lines in one order whatever the order of its objects\' keys (Postgres gives them back shortest first)', () => {
    const withRoutes = (routes: string[]) =>
      changed((s) => {
        s.compiled.policies.tenants.beta = Object.fromEntries(routes.map((route) => [route, { ...items, id: route, name: route.slice(5), pattern: route.slice(4) }]));
        s.compiled.tenants = Object.fromEntries(Object.entries(s.compiled.tenants).reverse());
      });
    const asWritten = lines(base(), withRoutes(['GET /closed', 'GET /local']));
    expect(asWritten).toEqual(['policy closed added to tenant beta: GET /closed, 1 limit', 'policy local added to tenant beta: GET /local, 1 limit']);
    expect(lines(base(), withRoutes(['GET /local', 'GET /closed']))).toEqual(asWritten);
    expect(lines(null, withRoutes(['GET /local', 'GET /closed']))).toEqual(lines(null, withRoutes(['GET /closed', 'GET /local'])));
  });

  it('names the owner of a policy when two owners have one of that name', () => {
    const after = changed((s) => {
      s.compiled.policies.plans.pro = { 'GET /v1/items/*': { ...items, cost: 3 } };
    });
    expect(lines(base(), after)).toEqual(['policy items (plan pro) added to plan pro: GET /v1/items/*, 1 limit']);
  });

  it('describes the first version against an empty rule set', () => {
    expect(lines(null, base())).toEqual([
      'plan starter added: minute 10 per minute, daily 1,000 per calendar day',
      'plan pro added: minute 100 per minute',
      'tenant acme added on plan starter',
      'tenant beta added on plan starter',
      'tenant gamma added on plan pro',
      'policy items added to plan starter: GET /v1/items/*, 1 limit',
      '1 key added to acme',
      '1 key added to beta',
      '1 service key added',
    ]);
  });

  it('reads the limits as enforced, tenant by tenant, when a version kept no snapshot', () => {
    const old = { ...base(), source: null };
    const after = changed((s) => {
      for (const t of tenantsOn(s, 'starter')) t.limits[0]!.limit = 20;
    });
    expect(lines(old, after)).toEqual(['acme: minute 10 → 20', 'beta: minute 10 → 20']);
  });

  it('takes names such as constructor and __proto__ as names', () => {
    const after = changed((s) => {
      const slug: string = 'constructor';
      s.compiled.tenants[slug] = tenant('55555555-5555-4555-8555-555555555555', slug, 'starter');
      s.source!.plans[0]!.limits[0]!.name = '__proto__';
    });
    expect(lines(base(), after)).toEqual([
      'starter: __proto__ added (10 per minute)',
      'starter: minute removed',
      'tenant constructor added on plan starter',
    ]);
  });

  it('knows keys by id: the same keys in another order are no change, and a key is never shown by its hash', () => {
    const reordered = changed((s) => {
      s.compiled.serviceKeys = [serviceKey(2), serviceKey(1), serviceKey(3)].reverse();
      s.compiled.tenantKeys.reverse();
    });
    const more = changed((s) => {
      s.compiled.serviceKeys = [serviceKey(1), serviceKey(2), serviceKey(3)];
    });
    expect(lines(more, reordered)).toEqual([]);
    const texts = describeRuleSetChanges(base(), reordered).map((c) => c.text).join(' ');
    expect(texts).toBe('2 service keys added');
    expect(texts).not.toMatch(/[0-9a-f]{32}/);
  });

  it('says a difference no sentence names leaf by leaf, so that no version claims to change nothing while it does', () => {
    const after = changed((s) => {
      s.compiled.explicitCalendars = true;
    });
    expect(describeRuleSetChanges(base(), after)).toEqual([{ kind: 'rule_set', text: 'explicitCalendars added: true' }]);
  });

  it('names the overrides a tenant is added with', () => {
    const after = changed((s) => {
      s.compiled.tenants.delta = tenant('44444444-4444-4444-8444-444444444444', 'delta', 'starter', [minute(50), daily(1000)]);
      s.source!.tenants.push({ id: '44444444-4444-4444-8444-444444444444', planId: STARTER, status: 'active', overrides: [{ ...minute(50), burst: null, calendar: null }] });
    });
    expect(lines(base(), after)).toEqual(['tenant delta added on plan starter, overrides minute 50 per minute']);
  });

  it('sums a version up in one line', () => {
    expect(summarizeChanges([])).toBe('no change to enforcement');
    expect(summarizeChanges([{ kind: 'plan', text: 'starter: minute 10 → 20' }])).toBe('starter: minute 10 → 20');
    const three = describeRuleSetChanges(base(), changed((s) => {
      s.compiled.tenants.acme!.status = 'suspended';
      s.compiled.tenants.beta!.status = 'suspended';
      s.compiled.serviceKeys = [];
    }));
    expect(summarizeChanges(three)).toBe('tenant acme suspended (and 2 more changes)');
  });

  it('does not take a plan\'s display name for a rule', () => {
    expect(lines(base(), changed((s) => void (s.source!.plans[0]!.name = 'Starter (2026)')))).toEqual([]);
  });
});
