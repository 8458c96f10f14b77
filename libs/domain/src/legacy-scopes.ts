/**
 * Rule set versions compiled before service keys' scopes were tenant ids name the tenants by slug (`tenants`,
 * null = every tenant). Such a version is read as if it named them by id: each slug becomes the id that tenant has
 * in the same version, and a slug the version does not know is dropped, so a key never reaches more than it did.
 * Anything else is returned as it is, for the schema to judge.
 */
export function withTenantIdScopes(raw: unknown): unknown {
  if (!isRecord(raw) || !Array.isArray(raw['serviceKeys']) || !raw['serviceKeys'].some(isLegacyKey)) return raw;
  const idOfSlug = new Map<string, string>();
  for (const tenant of isRecord(raw['tenants']) ? Object.values(raw['tenants']) : []) {
    if (isRecord(tenant) && typeof tenant['slug'] === 'string' && typeof tenant['id'] === 'string') idOfSlug.set(tenant['slug'], tenant['id']);
  }
  const serviceKeys = raw['serviceKeys'].map((key: unknown) => {
    if (!isLegacyKey(key)) return key;
    const { tenants, ...rest } = key;
    const tenantIds = Array.isArray(tenants) ? tenants.flatMap((s: unknown) => (typeof s === 'string' && idOfSlug.has(s) ? [idOfSlug.get(s)] : [])) : tenants;
    return { ...rest, tenantIds };
  });
  return { ...raw, serviceKeys };
}

function isLegacyKey(key: unknown): key is Record<string, unknown> {
  return isRecord(key) && 'tenants' in key && !('tenantIds' in key);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
