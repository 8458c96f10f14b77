import Link from 'next/link';
import type { RuleSetVersionSummary } from '@/lib/api-answers';
import { formatCount, formatRelativeTime, formatTimestamp } from '@/lib/format';
import { ruleSetsHref } from '@/lib/rule-sets';
import { DataTable } from './data-table';
import { RestoreForm } from './rule-set-restore';
import { StatusBadge } from './status-badge';

interface RuleSetsTableProps {
  versions: RuleSetVersionSummary[];
  /** The version in force, when it is on this page. */
  current: number | undefined;
  /** The version whose changes the diff panel shows, if any. */
  selected: number | undefined;
  trail: string[];
}

export function RuleSetsTable({ versions, current, selected, trail }: RuleSetsTableProps) {
  return (
    <DataTable testId="rule-sets-table" columns={['Version', 'Published', 'Author', { label: 'Changes', numeric: true }]} actions>
      {versions.map(({ version, createdAt, author, changes }) => (
        <tr
          key={version}
          aria-current={version === selected ? 'true' : undefined}
          data-testid={`rule-set-row-${version}`}
        >
          <td>
            <div className="rule-set-version">
              v{version}
              {version === current && <StatusBadge status="current" />}
            </div>
          </td>
          <td>
            <time dateTime={createdAt} title={formatTimestamp(createdAt)}>
              {formatRelativeTime(createdAt)}
            </time>
          </td>
          <td className="muted">{author}</td>
          <td className="table-num">{formatCount(changes)}</td>
          <td>
            <div className="table-actions">
              <Link
                href={ruleSetsHref(trail, { version })}
                className="btn btn-secondary btn-sm"
                aria-label={`Changes in v${version}`}
                data-testid={`rule-set-view-${version}`}
              >
                View changes
              </Link>
              {version !== current && <RestoreForm version={version} />}
            </div>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
