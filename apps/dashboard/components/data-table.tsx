import type { ReactNode } from 'react';

/** A column's heading; a numeric one is right-aligned like its cells. */
export type Column = string | { label: string; numeric: true };

interface DataTableProps {
  testId: string;
  /** Left to right; `false` leaves a column out (one only the operator's table has). */
  columns: readonly (Column | false)[];
  /** A last column of per-row buttons, its heading for screen readers only. */
  actions?: boolean;
  /** The rows. */
  children: ReactNode;
}

/** A list page's table: a card with its column headings over its rows. */
export function DataTable({ testId, columns, actions = false, children }: DataTableProps) {
  return (
    <div className="card table-card">
      <table className="table" data-testid={testId}>
        <thead>
          <tr>
            {columns.map((column) =>
              typeof column === 'string' ? (
                <th key={column} scope="col">
                  {column}
                </th>
              ) : (
                column && (
                  <th key={column.label} scope="col" className="table-num">
                    {column.label}
                  </th>
                )
              ),
            )}
            {actions && (
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
