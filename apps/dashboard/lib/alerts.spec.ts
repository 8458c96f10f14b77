import { describe, expect, it } from 'vitest';
import { describeAlert, describeNotified, describeParams, describeRepeat, paramField, readRepeatInterval, parseAlertFilter, readParams, readRuleSettings, readScope, scopeLabel, scopeValue } from './alerts';

const PLAN = '0b8c2a4e-7f1d-4c3a-9e5b-2d6f8a1c3e5f';
const TENANT = '1c9d3b5f-8a2e-4d4b-8f6c-3e7a9b2d4f6a';
const NOW = Date.parse('2026-12-02T12:00:00Z');

const reader = (fields: Record<string, string>) => (name: string) => fields[name] ?? '';

describe('parseAlertFilter', () => {
  it('takes a state, a kind, ids and a "since" as the start of the range; leaves anything else out', () => {
    expect(parseAlertFilter({ state: 'firing', kind: 'denied_rate', ruleId: PLAN, tenantId: TENANT, since: '24h' }, NOW)).toEqual({
      state: 'firing',
      kind: 'denied_rate',
      ruleId: PLAN,
      tenantId: TENANT,
      from: '2026-12-01T12:00:00.000Z',
    });
    expect(parseAlertFilter({ state: 'burning', kind: 'x', ruleId: 'acme', since: '2y' }, NOW)).toEqual({});
  });
});

describe('readScope and scopeValue', () => {
  it('read every tenant, a plan or a tenant, and write them back', () => {
    expect(readScope('everything')).toEqual({ planId: null, tenantId: null });
    expect(readScope(`plan:${PLAN}`)).toEqual({ planId: PLAN, tenantId: null });
    expect(readScope(`tenant:${TENANT}`)).toEqual({ planId: null, tenantId: TENANT });
    expect(readScope('tenant:acme')).toBeUndefined();
    expect(scopeValue({ planId: PLAN, tenantId: null })).toBe(`plan:${PLAN}`);
    expect(scopeValue({ planId: null, tenantId: null })).toBe('everything');
  });
  it('name whom a rule watches, the platform for a platform rule', () => {
    const names = new Map([[PLAN, 'Starter (starter)']]);
    expect(scopeLabel({ kind: 'quota_threshold', planId: PLAN, tenantId: null }, names)).toBe('tenants of plan Starter (starter)');
    expect(scopeLabel({ kind: 'denied_rate', planId: null, tenantId: TENANT }, names)).toBe('tenant (deleted)');
    expect(scopeLabel({ kind: 'platform_degraded', planId: null, tenantId: null }, names)).toBe('the platform');
  });
});

describe('readParams', () => {
  it('leaves blanks to the API’s defaults and reads numbers, thresholds and the reset box', () => {
    expect(readParams('quota_threshold', reader({ 'params.thresholds': '90, 75%', 'params.notifyReset': 'on' }))).toEqual({ thresholds: [90, 75], notifyReset: true });
    expect(readParams('quota_threshold', reader({ 'params.limit': 'day' }))).toEqual({ limit: 'day', notifyReset: false });
    expect(readParams('denied_rate', reader({ 'params.ratePercent': '2.5', 'params.holdMinutes': '10' }))).toEqual({ ratePercent: 2.5, holdMinutes: 10 });
    expect(readParams('platform_degraded', reader({}))).toEqual({});
  });
  it('refuses what is not a number, and a 429 rule without its rate', () => {
    expect(readParams('quota_threshold', reader({ 'params.thresholds': '80, lots' }))).toEqual({ field: 'params.thresholds', message: 'Enter whole percentages, e.g. 80, 100.' });
    expect(readParams('platform_degraded', reader({ 'params.forSeconds': 'soon' }))).toEqual({ field: 'params.forSeconds', message: 'Enter a number.' });
    expect(readParams('denied_rate', reader({}))).toMatchObject({ field: 'params.ratePercent' });
  });
  it('names the field of a refused threshold as the thresholds field', () => {
    expect(paramField('params.thresholds.1')).toBe('params.thresholds');
    expect(paramField('name')).toBe('name');
  });
});

describe('readRuleSettings', () => {
  it('reads the params and the repeat interval together, or names the first problem', () => {
    expect(readRuleSettings('platform_degraded', reader({ 'params.forSeconds': '30', repeatIntervalMinutes: '15' }))).toEqual({ params: { forSeconds: 30 }, repeatIntervalMinutes: 15 });
    expect(readRuleSettings('platform_degraded', reader({ 'params.forSeconds': 'soon', repeatIntervalMinutes: 'often' }))).toEqual({ field: 'params.forSeconds', message: 'Enter a number.' });
    expect(readRuleSettings('platform_degraded', reader({ repeatIntervalMinutes: 'often' }))).toMatchObject({ field: 'repeatIntervalMinutes' });
  });
});

describe('describeParams and describeAlert', () => {
  it('say a rule’s condition in words', () => {
    expect(describeParams({ kind: 'quota_threshold', params: { limit: null, thresholds: [80, 100], notifyReset: false }, repeatIntervalMinutes: 60 })).toBe('At 80%, 100% of every daily quota; told again after 1 h');
    expect(describeParams({ kind: 'denied_rate', params: { ratePercent: 5, windowMinutes: 5, minDecisions: 1000, pendingMinutes: 1, holdMinutes: 5 }, repeatIntervalMinutes: 90 })).toBe(
      'Above 5% denied over 5 min (at least 1,000 decisions), for 1 min; resolved after 5 min below; told again after 90 min',
    );
    expect(describeRepeat(2880)).toBe('2 days');
  });
  it('read a repeat interval from the form: blank is the default, anything but whole minutes is refused here', () => {
    expect(readRepeatInterval(() => '')).toEqual({});
    expect(readRepeatInterval(() => '240')).toEqual({ repeatIntervalMinutes: 240 });
    expect(readRepeatInterval(() => '1.5')).toEqual({ field: 'repeatIntervalMinutes', message: 'Enter whole minutes, e.g. 60.' });
  });
  it('say what an alert measured, whatever its details hold', () => {
    expect(describeAlert({ kind: 'quota_threshold', limitName: 'day', details: { thresholds: [80, 100], used: 1000, capacity: 1000 } })).toBe('day reached 80%, 100% (1,000 of 1,000)');
    expect(describeAlert({ kind: 'denied_rate', limitName: null, details: { percent: 12.345, decisions: 200 } })).toBe('12.3% denied of 200 decisions');
    expect(describeAlert({ kind: 'platform_degraded', limitName: null, details: { degradedDecisions: 'many' } })).toBe('decisions made without Redis');
    expect(describeAlert({ kind: 'quota_threshold', limitName: 'minute', details: { thresholds: [100], used: 5, capacity: 5, windows: 1234 } })).toBe('minute reached 100% (5 of 5) in 1,234 windows in a row');
  });
  it('say how often an alert was told, or that it was not', () => {
    expect(describeNotified({ state: 'firing', notifications: 3, notifiedAt: '2026-12-05T14:02:09Z' })).toBe('3× (last 14:02 UTC)');
    expect(describeNotified({ state: 'firing', notifications: 0, notifiedAt: null })).toBe('not sent');
  });
});
