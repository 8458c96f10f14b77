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
