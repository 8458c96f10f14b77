import { describe, expect, it } from 'vitest';
import { eventTypesOf, instantFromLocal, isEndpointId, localFromInstant, parseWebhookFilter, readEventTypes, readSecretOverlap, webhookOwner, webhookPath } from './webhooks';

const ID = '0b8c2a4e-7f1d-4c3a-9e5b-2d6f8a1c3e5f';

describe('webhookPath', () => {
  it('leads the operator to /webhooks and a tenant user to its portal, an endpoint below its list', () => {
    expect(webhookPath('admin')).toBe('/webhooks');
    expect(webhookPath('tenant', ID)).toBe(`/portal/webhooks/${ID}`);
    expect(webhookPath('admin', '../x')).toBe('/webhooks/..%2Fx');
  });
});

describe('eventTypesOf', () => {
  it('offers a tenant’s endpoint its quota’s events only, the operator’s every event', () => {
    expect(eventTypesOf('tenant')).toEqual(['quota.threshold_crossed', 'quota.window_reset', 'webhook.test']);
    expect(eventTypesOf('admin', 'tenant')).toEqual(eventTypesOf('tenant'));
    expect(eventTypesOf('admin')).toContain('platform.rule_set_rejected');
  });
});

describe('readEventTypes', () => {
  it('keeps the ticked types the audience may have, once each, in their order', () => {
    const form = new FormData();
    for (const type of ['quota.window_reset', 'platform.rule_set_rejected', 'quota.window_reset', 'no.such_type', 'quota.threshold_crossed']) form.append('eventTypes', type);
    expect(readEventTypes(form, eventTypesOf('tenant'))).toEqual(['quota.threshold_crossed', 'quota.window_reset']);
    expect(readEventTypes(form, eventTypesOf('admin'))).toEqual(['quota.threshold_crossed', 'quota.window_reset', 'platform.rule_set_rejected']);
  });
});

describe('parseWebhookFilter', () => {
  it('takes the operator or a tenant id as owner, true or false as enabled, and leaves anything else out', () => {
    expect(parseWebhookFilter({ owner: 'operator', enabled: 'false' })).toEqual({ owner: 'operator', enabled: 'false' });
    expect(parseWebhookFilter({ owner: [ID, 'operator'] })).toEqual({ owner: ID });
    expect(parseWebhookFilter({ owner: 'acme', enabled: 'yes' })).toEqual({});
  });
});

describe('webhookOwner', () => {
  it('names the operator, or the tenant by its name when it is known', () => {
    expect(webhookOwner({ tenantId: null }, new Map())).toBe('Operator');
    expect(webhookOwner({ tenantId: ID }, new Map([[ID, 'Acme (acme)']]))).toBe('Acme (acme)');
    expect(webhookOwner({ tenantId: ID }, new Map())).toBe('a tenant');
  });
});

describe('instantFromLocal and localFromInstant', () => {
  it('read a datetime-local minute as UTC, and write one back', () => {
    expect(instantFromLocal('2026-12-01T09:30')).toBe('2026-12-01T09:30:00.000Z');
    expect(instantFromLocal('2026-12-01T09:30:15')).toBe('2026-12-01T09:30:15.000Z');
    expect(localFromInstant(Date.parse('2026-12-01T09:30:59Z'))).toBe('2026-12-01T09:30');
  });
  it('refuse what is not one', () => {
    for (const text of ['', 'yesterday', '2026-12-01', '2026-13-01T09:30', '2026-12-01T09:30Z', '2026-12-01T09:30\n']) expect(instantFromLocal(text)).toBeUndefined();
  });
});

describe('readSecretOverlap', () => {
  it('takes one of the offered overlaps, and the API’s day otherwise', () => {
    expect(readSecretOverlap('0')).toBe(0);
    expect(readSecretOverlap('604800')).toBe(604_800);
    expect(readSecretOverlap('5')).toBe(86_400);
    expect(readSecretOverlap('')).toBe(86_400);
  });
});

describe('isEndpointId', () => {
  it('takes a uuid only', () => {
    expect(isEndpointId(ID)).toBe(true);
    expect(isEndpointId('new')).toBe(false);
  });
});
