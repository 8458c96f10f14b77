import { describe, expect, it } from 'vitest';
import { parseAccountFilter } from './users';

describe('parseAccountFilter', () => {
  const tenantId = '4b0f4a43-33c8-4a5c-9d0e-3c1e0d9f7a11';

  it('reads a role and a tenant', () => {
    expect(parseAccountFilter({ role: 'tenant', tenantId })).toEqual({ role: 'tenant', tenantId });
    expect(parseAccountFilter({ role: ['operator', 'tenant'] })).toEqual({ role: 'operator' });
    expect(parseAccountFilter({ q: ' ops@ ', role: 'operator' })).toEqual({ q: 'ops@', role: 'operator' });
  });

  it('ignores what the API would refuse, and blanks (“any”)', () => {
    expect(parseAccountFilter({ role: 'admin', tenantId: 'acme' })).toEqual({});
    expect(parseAccountFilter({ role: '', tenantId: '' })).toEqual({});
  });
});
