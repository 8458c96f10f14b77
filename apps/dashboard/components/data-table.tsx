import type { ReactNode } from 'react';
import './data-table.css';

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

/** Below this width a table's rows become cards: each cell on a line of its own, after its column's name. */
const STACKED = '(max-width: 640px)';

/**
 * The rule that names each cell of a stacked row by its column (the row components know their cells, not their
 * headings). Column labels are the code's own strings, never input.
 */
function stackedLabels(testId: string, labels: string[]): string {
  const cell = (i: number) => `[data-testid="${testId}"] > tbody > tr:not(.row-expanded) > td:nth-child(${i + 1})`;
  const rules = labels.map((label, i) => `${cell(i)}{padding-left:calc(16px + 7.5em)}${cell(i)}::before{content:${JSON.stringify(label)}}`);
  return `@media ${STACKED}{${rules.join('')}}`;
}

/** A table's column headings, left to right (`false` leaves one out); `actions` adds a last one for per-row buttons. */
export function TableHead({ columns, actions = false }: { columns: readonly (Column | false)[]; actions?: boolean }) {
  return (
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
  );
}

interface TableCardProps {
  title: string;
  /** The table's test id; its title's id is `<testId>-title`. */
  testId: string;
  columns: readonly (Column | false)[];
  /** Said instead of the table when it has no rows (`null`: it has some). */
  empty: ReactNode | null;
  emptyTestId?: string;
  tableClassName?: string;
  /** Under the table (or what is said instead). */
  footer?: ReactNode;
  /** The rows. */
  children: ReactNode;
}

/** A titled card of one table (usage by route, the limits of a policy…), or of what it says when it has no rows. */
export function TableCard({ title, testId, columns, empty, emptyTestId, tableClassName, footer, children }: TableCardProps) {
  return (
    <section className="card table-card" aria-labelledby={`${testId}-title`}>
      <h2 id={`${testId}-title`} className="card-title">
        {title}
      </h2>
      {empty !== null ? (
        <p className="muted card-empty" data-testid={emptyTestId}>
          {empty}
        </p>
      ) : (
        <table className={tableClassName ? `table ${tableClassName}` : 'table'} data-testid={testId}>
          <TableHead columns={columns} />
          <tbody>{children}</tbody>
        </table>
      )}
      {footer}
    </section>
  );
}

/** A list page's table: a card with its column headings over its rows; on a narrow screen, a card per row. */
export function DataTable({ testId, columns, actions = false, children }: DataTableProps) {
  const labels = columns.filter((column) => column !== false).map((column) => (typeof column === 'string' ? column : column.label));
  return (
    <div className="card table-card">
      <style>{stackedLabels(testId, labels)}</style>
      <table className="table table-stack" data-testid={testId}>
        <TableHead columns={columns} actions={actions} />
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
