import type { ReactNode } from 'react';

/** A row under a table row, across all its columns: its inline form, a refusal, or what its last change did. */
export function ExpandedRow({ columns, children }: { columns: number; children: ReactNode }) {
  return (
    <tr className="row-expanded">
      <td colSpan={columns}>{children}</td>
    </tr>
  );
}
