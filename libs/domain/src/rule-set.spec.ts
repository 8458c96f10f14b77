import { describe, expect, it } from 'vitest';
import { ruleSetSchema } from './rule-set';

const tenant = (id: string, slug: string) => ({ id, slug, status: 'active', plan: 'starter', timeZone: 'UTC', limits: [] });
const key = (id: string, scope: Record<string, unknown>) => ({ id, prefix: `tg_${id}`, hash: 'a'.repeat(64), expiresAt: null, ...scope });

describe('ruleSetSchema', () => {
  it('reads a version whose service keys named tenants by slug with their ids, dropping slugs it does not know', () => {
    const parsed = ruleSetSchema.parse({
      version: 3,
      compiledAt: '2026-11-30T12:00:00.000Z',
      tenants: { acme: tenant('t-acme', 'acme'), globex: tenant('t-globex', 'globex') },
      serviceKeys: [key('every', { tenants: null }), key('two', { tenants: ['acme', 'globex'] }), key('gone', { tenants: ['deleted'] })],
    });
    expect(parsed.serviceKeys.map((k) => [k.id, k.tenantIds])).toEqual([
      ['every', null],
      ['two', ['t-acme', 't-globex']],
      // Its only tenant is not in that version: it reaches no tenant, never every tenant.
      ['gone', []],
    ]);
  });

  it('reads a current version as it is', () => {
    const current = { version: 4, compiledAt: '2026-12-01T12:00:00.000Z', tenants: { acme: tenant('t-acme', 'acme') }, serviceKeys: [key('k', { tenantIds: ['t-acme'] })] };
    expect(ruleSetSchema.parse(current).serviceKeys[0]!.tenantIds).toEqual(['t-acme']);
    expect(() => ruleSetSchema.parse({ ...current, serviceKeys: [key('k', {})] })).toThrow();
  });
});
