/**
 * `rows` grouped by `key`, each group in the rows' order. The rule set's sources read a table's children in one query
 * of their own and join them here: Prisma loads an `include` with one bind parameter per parent row, and Postgres
 * takes at most 65,535 of them, so a rule set over more tenants than that could not be compiled at all.
 */
export function groupBy<T, K>(rows: readonly T[], key: (row: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}
