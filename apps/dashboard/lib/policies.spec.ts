import { describe, expect, it } from 'vitest';
import { parsePolicyFilter, readNewPolicy, readPolicySettings } from './policies';

const reader = (values: Record<string, string>) => (name: string) => values[name] ?? '';
const settings = { mode: 'shadow', failureMode: 'closed', scope: 'ip', cost: '3', replicaAck: 'at_once', regionScope: 'region' };

describe('policy forms', () => {
  it('reads a new plan or tenant policy from the owner select', () => {
    const base = { name: 'items', method: 'GET', pattern: ' /v1/items/* ', ...settings };
    expect(readNewPolicy(reader({ owner: 'plan:p1', ...base }))).toEqual({
      planId: 'p1',
      name: 'items',
      method: 'GET',
      pattern: '/v1/items/*',
      mode: 'shadow',
      failureMode: 'closed',
      scope: 'ip',
      cost: 3,
      replicaAck: false,
      regionScope: 'region',
    });
    expect(readNewPolicy(reader({ owner: 'tenant:t1', ...base }))).toMatchObject({ tenantId: 't1' });
  });

  it.each([
    ['no owner', { owner: '' }, 'planId'],
    ['no name', { name: '' }, 'name'],
    ['an unknown method', { method: 'FETCH' }, 'method'],
    ['no pattern', { pattern: ' ' }, 'pattern'],
    ['a zero cost', { cost: '0' }, 'cost'],
    ['a fractional cost', { cost: '1.5' }, 'cost'],
    ['an unknown mode', { mode: 'loud' }, 'mode'],
  ])('names the field of %s', (_label, spoil, field) => {
    const values = { owner: 'plan:p1', name: 'items', method: 'GET', pattern: '/x', ...settings, ...spoil };
    expect(readNewPolicy(reader(values))).toMatchObject({ field });
  });

  it('reads the settings the Edit form changes', () => {
    expect(readPolicySettings(reader(settings))).toEqual({ mode: 'shadow', failureMode: 'closed', scope: 'ip', cost: 3, replicaAck: false, regionScope: 'region' });
    expect(readPolicySettings(reader({ ...settings, regionScope: 'global' }))).toMatchObject({ regionScope: 'global' });
    expect(readPolicySettings(reader({ ...settings, regionScope: 'everywhere' }))).toMatchObject({ field: 'regionScope' });
    expect(readPolicySettings(reader({ ...settings, replicaAck: 'replica' }))).toMatchObject({ replicaAck: true });
    expect(readPolicySettings(reader({ ...settings, failureMode: 'retry' }))).toMatchObject({ field: 'failureMode' });
    expect(readPolicySettings(reader({ ...settings, replicaAck: 'yes' }))).toMatchObject({ field: 'replicaAck' });
  });

  it('reads the list filters from the query, ignoring what it does not know', () => {
    expect(parsePolicyFilter({ owner: 'tenant:t1', method: 'POST', mode: 'off', after: 'x' })).toEqual({ tenantId: 't1', method: 'POST', mode: 'off' });
    expect(parsePolicyFilter({ owner: 'plan:p1', method: 'FETCH', mode: ['shadow', 'off'] })).toEqual({ planId: 'p1', method: undefined, mode: 'shadow' });
    expect(parsePolicyFilter({})).toEqual({ method: undefined, mode: undefined });
    expect(parsePolicyFilter({ q: ' items ' })).toEqual({ q: 'items', method: undefined, mode: undefined });
  });
});
