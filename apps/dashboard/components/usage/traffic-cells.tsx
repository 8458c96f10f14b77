import { formatCount } from '@/lib/format';
import { formatRate } from '@/lib/usage-chart';
import type { Column } from '../data-table';

/** The headings of `DenialCells`, and of a row's decisions after them. */
export const DENIAL_COLUMNS: readonly Column[] = [
  { label: '429 rate', numeric: true },
  { label: 'Denied', numeric: true },
];
export const DECISIONS_COLUMN: Column = { label: 'Decisions', numeric: true };

/** A count, right-aligned in its column. */
export function CountCell({ value, testId }: { value: number; testId?: string }) {
  return (
    <td className="table-num" data-testid={testId}>
      {formatCount(value)}
    </td>
  );
}

/** A usage row's 429 rate and denials (test ids `<testId>-rate` and `<testId>-denied` when given). */
export function DenialCells({ entry, testId }: { entry: { denyRate: number | null; denied: number }; testId?: string }) {
  return (
    <>
      <td className="table-num" data-testid={testId && `${testId}-rate`}>
        {formatRate(entry.denyRate)}
      </td>
      <CountCell value={entry.denied} testId={testId && `${testId}-denied`} />
    </>
  );
}
