import { describe, expect, it } from 'vitest';
import { limitBodySchema, newLimitSchema, patchedLimit } from './limits';
import { ruleSetSchema } from './rule-set';

describe('limits: the calendar is explicit', () => {
  it('fills in a calendar limit\'s window, and refuses a calendar on anything but its fixed window', () => {
    expect(newLimitSchema.parse({ name: 'daily', limit: 5, calendar: 'day' })).toEqual({ name: 'daily', windowS: 86_400, limit: 5, algorithm: 'fixed_window', burst: null, calendar: 'day' });
    expect(limitBodySchema.parse({ windowS: 86_400, limit: 5 })).toMatchObject({ windowS: 86_400, calendar: null });
    expect(newLimitSchema.safeParse({ name: 'd', limit: 5, calendar: 'week' }).error?.issues[0]?.path).toEqual(['calendar']);
    expect(newLimitSchema.safeParse({ name: 'd', limit: 5, calendar: 'day', algorithm: 'gcra' }).error?.issues[0]?.path).toEqual(['calendar']);
    expect(newLimitSchema.safeParse({ name: 'd', limit: 5, calendar: 'day', windowS: 3600 }).error?.issues[0]?.path).toEqual(['windowS']);
    expect(newLimitSchema.safeParse({ name: 'd', limit: 5 }).error?.issues[0]?.path).toEqual(['windowS']);
  });

  it('checks a patch against the stored limit', () => {
    const stored = { windowS: 60, limit: 5, algorithm: 'fixed_window' as const, burst: null, calendar: null };
    expect(patchedLimit(stored, { calendar: 'month' }).data).toEqual({ calendar: 'month', windowS: 31 * 86_400 });
    expect(patchedLimit({ ...stored, windowS: 86_400, calendar: 'day' }, { algorithm: 'token_bucket' }).problem?.path).toBe('calendar');
    expect(patchedLimit({ ...stored, windowS: 86_400, calendar: 'day' }, { algorithm: 'token_bucket', calendar: null }).problem).toBeNull();
  });

  it('reads a rule set compiled before calendars were explicit with its daily fixed windows on the calendar', () => {
    const limits = [
      { name: 'daily', windowS: 86_400, limit: 9, algorithm: 'fixed_window' },
      { name: 'bucket', windowS: 86_400, limit: 9, algorithm: 'token_bucket' },
    ];
    const tenant = { id: 't1', slug: 'acme', status: 'active', plan: 'starter', limits };
    const policy = { id: 'p1', name: 'items', method: 'GET', pattern: '/v1/items', cost: 1, scope: 'tenant', mode: 'enforce', failureMode: 'open', limits };
    const raw = { version: 1, compiledAt: new Date(0).toISOString(), tenants: { acme: tenant }, serviceKeys: [], policies: { plans: { starter: { 'GET /v1/items': policy } }, tenants: {} } };
    const legacy = ruleSetSchema.parse(raw);
    expect(legacy.tenants['acme']!.limits.map((l) => l.calendar)).toEqual(['day', undefined]);
    expect(legacy.policies.plans['starter']!['GET /v1/items']!.limits.map((l) => l.calendar)).toEqual(['day', undefined]);
    expect(ruleSetSchema.parse({ ...raw, explicitCalendars: true }).tenants['acme']!.limits.map((l) => l.calendar)).toEqual([undefined, undefined]);
  });
});
