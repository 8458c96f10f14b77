/**
 * `record`'s own property `key`, or undefined. Rule sets index tenants, plans and policies by names a user chose; a
 * plain lookup by `constructor` or `toString` would find a member of Object.prototype instead of nothing.
 */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
