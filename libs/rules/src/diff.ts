import type { RuleSetBody } from '@tollgate/domain';

/** One changed leaf between two JSON documents; `path` like `tenants.acme.limits.0.limit`. */
export interface JsonChange {
  path: string;
  before?: unknown;
  after?: unknown;
}

/** The leaf-level differences between two JSON values (added, removed and changed paths), sorted by path. */
export function diffJson(before: unknown, after: unknown, path = ''): JsonChange[] {
  if (isContainer(before) && isContainer(after) && Array.isArray(before) === Array.isArray(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    const changes: JsonChange[] = [];
    for (const key of [...keys].sort()) {
      const child = path ? `${path}.${key}` : key;
      // Own properties only: a key such as `constructor` on one side must not find Object on the other.
      const b = Object.hasOwn(before, key) ? (before as Record<string, unknown>)[key] : undefined;
      const a = Object.hasOwn(after, key) ? (after as Record<string, unknown>)[key] : undefined;
      changes.push(...diffJson(b, a, child));
    }
    return changes;
  }
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  return [{ path, ...(before === undefined ? {} : { before }), ...(after === undefined ? {} : { after }) }];
}

function isContainer(v: unknown): v is object {
  return typeof v === 'object' && v !== null;
}

/**
 * The leaf differences between two compiled rule sets, each key known by its id (not by its place in the list, which
 * says nothing) and without its hash (a hash is never shown, and a key's hash never changes under its id).
 */
export function diffRuleSetBodies(before: RuleSetBody, after: RuleSetBody): JsonChange[] {
  return diffJson(byIdentity(before), byIdentity(after));
}

function byIdentity({ serviceKeys, tenantKeys, revokedTenantKeys, ...body }: RuleSetBody) {
  const keyed = (keys: readonly { id: string; hash: string }[]) => Object.fromEntries(keys.map(({ hash: _hash, ...key }) => [key.id, key]));
  return { ...body, serviceKeys: keyed(serviceKeys), tenantKeys: keyed(tenantKeys), revokedTenantKeys: keyed(revokedTenantKeys) };
}
