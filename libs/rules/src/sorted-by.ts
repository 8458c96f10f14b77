/** Rows in the order of a name, compared by code unit (the same on every machine, whatever its locale). */
export function sortedBy<T>(rows: readonly T[], name: (row: T) => string): T[] {
  return [...rows].sort((a, b) => {
    const [x, y] = [name(a), name(b)];
    return x < y ? -1 : x > y ? 1 : 0;
  });
}
