'use client';

import type { ReactNode } from 'react';
import { ExpandedRow } from './expanded-row';
import { FormAlert } from './form-messages';
import { MutationStatus, useSuccessMessage } from './mutation-status';

interface ActionRowProps {
  testId: string;
  /** How many columns the table has: what opens under the row spans them all. */
  columns: number;
  /** Where the row's changes are reported; the last one's message shows under it. */
  statusKey: string;
  /** The row's cells, before its actions. */
  children: ReactNode;
  /** Its buttons (Edit, Delete…); none leaves the last cell empty. */
  actions?: ReactNode;
  /** The inline form open under it, if any. */
  panel?: ReactNode;
  /** Why its last change was refused, when no form shows it. */
  failure?: { message: string; testId: string };
  /** Shown with its last change's status (a rotated key's secret); `keepStatus` shows them before any success. */
  statusExtra?: ReactNode;
  keepStatus?: boolean;
}

/** One row of a table the operator changes in place, with what opens under it: a form, a refusal, a status. */
export function ActionRow({ testId, columns, statusKey, children, actions, panel, failure, statusExtra, keepStatus = false }: ActionRowProps) {
  const succeeded = useSuccessMessage(statusKey) !== undefined;
  return (
    <>
      <tr data-testid={testId}>
        {children}
        <td>{actions && <div className="table-actions">{actions}</div>}</td>
      </tr>
      {panel && <ExpandedRow columns={columns}>{panel}</ExpandedRow>}
      {failure && (
        <ExpandedRow columns={columns}>
          <FormAlert message={failure.message} testId={failure.testId} />
        </ExpandedRow>
      )}
      {(succeeded || keepStatus) && (
        <ExpandedRow columns={columns}>
          <MutationStatus statusKey={statusKey} className="row-status" />
          {statusExtra}
        </ExpandedRow>
      )}
    </>
  );
}
