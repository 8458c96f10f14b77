import { describe, expect, it } from 'vitest';
import { newAlertRuleSchema, storedParams } from './alerts';

const parse = (input: unknown) => newAlertRuleSchema.safeParse(input);
const fields = (input: unknown) => {
  const r = parse(input);
  return r.success ? [] : r.error.issues.map((i) => i.path.join('.'));
};

describe('alert rules', () => {
  it('fill in each kind\'s defaults and sort thresholds', () => {
    expect(parse({ name: ' near quota ', kind: 'quota_threshold' }).data).toEqual({
      name: 'near quota', kind: 'quota_threshold', planId: null, tenantId: null, enabled: true,
      params: { limit: null, thresholds: [80, 100], notifyReset: false }, repeatIntervalMinutes: 60,
    });
    expect(parse({ name: 'x', kind: 'denied_rate', params: { ratePercent: 5 }, repeatIntervalMinutes: 240 }).data?.repeatIntervalMinutes).toBe(240);
    for (const repeatIntervalMinutes of [0, 10_081, 2.5]) expect(parse({ name: 'x', kind: 'platform_degraded', repeatIntervalMinutes }).success).toBe(false);
    expect(parse({ name: 'x', kind: 'quota_threshold', params: { thresholds: [100, 50, 90], limit: 'api-daily' } }).data?.params).toEqual({ limit: 'api-daily', thresholds: [50, 90, 100], notifyReset: false });
    expect(parse({ name: 'x', kind: 'denied_rate', params: { ratePercent: 2.5 } }).data?.params).toEqual({ ratePercent: 2.5, windowMinutes: 5, minDecisions: 100, pendingMinutes: 1, holdMinutes: 5 });
    expect(parse({ name: 'x', kind: 'platform_degraded' }).data?.params).toEqual({ forSeconds: 60, holdMinutes: 2 });
  });

  it('name the field of every refusal, params under params.<field>', () => {
    expect(fields({ name: 'x', kind: 'quota_threshold', params: { thresholds: [] } })).toEqual(['params.thresholds']);
    expect(fields({ name: 'x', kind: 'quota_threshold', params: { thresholds: [50, 50] } })).toEqual(['params.thresholds']);
    expect(fields({ name: 'x', kind: 'quota_threshold', params: { thresholds: [80.5] } })).toEqual(['params.thresholds.0']);
    expect(fields({ name: 'x', kind: 'denied_rate', params: { ratePercent: 0 } })).toEqual(['params.ratePercent']);
    expect(fields({ name: 'x', kind: 'denied_rate', params: { ratePercent: 5, __proto__x: 1 } })).toEqual(['params']);
    expect(fields({ name: 'x', kind: 'platform_degraded', planId: '00000000-0000-4000-8000-000000000000' })).toEqual(['planId']);
    expect(fields({ name: 'x', kind: 'quota_threshold', planId: '00000000-0000-4000-8000-000000000000', tenantId: '00000000-0000-4000-8000-000000000001' })).toEqual(['tenantId']);
    expect(fields({ name: 'x\u001b[31m', kind: 'quota_threshold' })).toEqual(['name']);
  });

  it('read stored params back, or nothing when they no longer validate', () => {
    expect(storedParams('quota_threshold', { thresholds: [90] })).toEqual({ limit: null, thresholds: [90], notifyReset: false });
    expect(storedParams('denied_rate', { ratePercent: 'lots' })).toBeNull();
    expect(storedParams('platform_degraded', null)).toBeNull();
  });
});
