import { describe, expect, it } from 'vitest';
import type { LimitRule } from './contract';
import { CostExceedsCapacityError, InvalidRuleError } from './errors';
import { MemoryEngine } from './memory/memory-engine';
import { regionShare } from './rules';
import { pushRuleKeys } from './redis/protocol';
import { allowanceKey, globalWindowsKey, parseGlobalWindow } from './redis/keys';
import { keyPrefixOf, prepareRules, validateRequest } from './prepared-rules';
import { argsAt } from './redis/protocol';
import { ruleKey, tenantKeyPrefix } from './redis/keys';

const minute: LimitRule = { name: 'minute', algorithm: 'fixed_window', limit: 5, windowMs: 60_000 };
const bucket: LimitRule = { name: 'bucket', algorithm: 'token_bucket', limit: 1, windowMs: 1000, burst: 3 };

describe('prepareRules', () => {
  it('resolves every rule and works out what a decision sends for it, frozen', () => {
    const prepared = prepareRules([minute, bucket]);
    expect(prepared.rules.map((r) => r.capacity)).toEqual([5, 3]);
    expect(prepared.keyParts).toEqual(['fw:minute:', 'tb1000:bucket:']);
    expect(prepared.args).toEqual(['2', 'fw', '5', '60000', 'tb', '1', '1000', '3', '%d%04d3']);
    expect(prepared.calendar).toBe(false);
    expect(prepared.models).toHaveLength(2);
    expect(Object.isFrozen(prepared) && Object.isFrozen(prepared.rules) && Object.isFrozen(prepared.args)).toBe(true);
    expect(validateRequest('consume', { tenantId: 't', rules: prepared }, 1)).toBe(prepared.rules);
  });

  it('refuses an invalid rule, then a repeated name', () => {
    expect(() => prepareRules([{ ...minute, limit: 0 }])).toThrow(InvalidRuleError);
    expect(() => prepareRules([minute, { ...minute, limit: 100 }])).toThrow(expect.objectContaining({ reason: 'duplicate_name', field: 'rules.1.name' }));
    expect(() => prepareRules([minute, { ...minute, limit: 0 }])).toThrow(expect.objectContaining({ reason: 'not_positive_integer' }));
  });

  it('prepares a tenant\'s key prefix once, and any other tenant\'s per call', () => {
    const prepared = prepareRules([minute], 'tenant-1');
    expect(keyPrefixOf(prepared, 'tenant-1')).toBe(tenantKeyPrefix('tenant-1'));
    expect(keyPrefixOf(prepared, 'tenant-2')).toBe(tenantKeyPrefix('tenant-2'));
    expect(keyPrefixOf(prepareRules([minute]), 'tenant-1')).toBe(tenantKeyPrefix('tenant-1'));
    expect(prepareRules([minute, bucket], 'tenant-1').tenant?.wholeTenantKeys).toEqual([ruleKey('tenant-1', minute, undefined), ruleKey('tenant-1', bucket, undefined)]);
  });

  it('keeps each calendar rule\'s last windows in the prepared rules, and moves on when the clock leaves them', () => {
    const daily: LimitRule = { name: 'daily', algorithm: 'fixed_window', limit: 9, windowMs: 0, calendar: { unit: 'day', timeZone: 'UTC' } };
    const prepared = prepareRules([minute, daily]);
    const noon = Date.UTC(2026, 5, 1, 12);
    const first = argsAt(prepared, noon);
    expect(argsAt(prepared, noon + 3_600_000)).toEqual(first);
    expect(argsAt(prepared, noon + 86_400_000).slice(-3)).toEqual([Date.UTC(2026, 5, 2), Date.UTC(2026, 5, 3), Date.UTC(2026, 5, 4)]);
    expect(argsAt(prepared, noon)).toEqual(first);
  });

  it('leaves the checks that depend on the request to each request', () => {
    const prepared = prepareRules([minute, bucket]);
    expect(() => validateRequest('consume', { tenantId: 't', rules: prepared }, 4)).toThrow(CostExceedsCapacityError);
    expect(() => validateRequest('consume', { tenantId: '', rules: prepared }, 1)).toThrow(expect.objectContaining({ field: 'tenantId' }));
  });

  it('divides a quota across regions evenly, the remainder to the first regions, and refuses what cannot be one', () => {
    expect([0, 1, 2].map((index) => regionShare(10, { index, count: 3 }))).toEqual([4, 3, 3]);
    expect([0, 1].map((index) => regionShare(1, { index, count: 2 }))).toEqual([1, 0]);
    const regions = (value: unknown) => prepareRules([{ ...minute, regions: value as LimitRule['regions'] }]);
    expect(() => prepareRules([{ ...bucket, regions: { index: 0, count: 2 } }])).toThrow(expect.objectContaining({ reason: 'bad_regions', field: 'rules.0.regions' }));
    expect(() => regions({ index: 2, count: 2 })).toThrow(expect.objectContaining({ reason: 'bad_regions', field: 'rules.0.regions.index' }));
    expect(() => regions({ index: 0, count: 65 })).toThrow(expect.objectContaining({ reason: 'bad_regions', field: 'rules.0.regions.count' }));
    expect(() => regions({ index: -1, count: 2 })).toThrow(expect.objectContaining({ field: 'rules.0.regions.index' }));
    expect(() => regions(null)).toThrow(expect.objectContaining({ field: 'rules.0.regions' }));
  });

  it('declares a quota across regions\' allowance and the tenant\'s set of such windows after the window\'s keys', () => {
    const rule = prepareRules([{ ...minute, regions: { index: 1, count: 2 } }]).rules[0]!;
    const key = ruleKey('t', minute, undefined);
    const keys: string[] = [];
    pushRuleKeys(keys, key, rule, 120_500);
    expect(keys).toEqual([key, `${key}:120000`, `${key}:al`, `${tenantKeyPrefix('t')}gl`]);
    expect([allowanceKey(key), globalWindowsKey(key)]).toEqual(keys.slice(2));
    expect(parseGlobalWindow(`120000 180000 5 ${key}`)).toEqual({ start: 120_000, end: 180_000, limit: 5, ruleKey: key });
    expect(parseGlobalWindow('120000 180000 5 other')).toBeUndefined();
  });

  it('admits a region\'s share in memory (the Redis engine\'s answer while the coordinator moved nothing)', async () => {
    const engine = new MemoryEngine({ maxEntries: 10 });
    const rules = prepareRules([{ ...minute, regions: { index: 1, count: 2 } }]);
    const allowed = [];
    for (let i = 0; i < 4; i += 1) allowed.push((await engine.consume({ tenantId: 't', cost: 1, rules })).allowed);
    expect(allowed).toEqual([true, true, false, false]);
  });
});
