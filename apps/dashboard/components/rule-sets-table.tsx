import Link from 'next/link';
import type { RuleSetVersionSummary } from '@/lib/api-answers';
import { formatCount, formatRelativeTime, formatTimestamp } from '@/lib/format';
import { ruleSetsHref } from '@/lib/rule-sets';
import { DataTable } from './data-table';
import { StatusBadge } from './status-badge';
import './rule-sets.css';

interface RuleSetsTableProps {
  versions: RuleSetVersionSummary[];
  /** The version in force, when it is on this page. */
  current: number | undefined;
  /** The version whose changes (or restore) the panel shows, if any. */
  selected: number | undefined;
  trail: string[];
}

/** The history: per version its one-line summary and its number of changes, the lines "View changes" lists. */
export function RuleSetsTable({ versions, current, selected, trail }: RuleSetsTableProps) {
  return (
    <DataTable testId="rule-sets-table" columns={['Version', 'Summary', { label: 'Changes', numeric: true }, 'Published', 'Author']} actions>
      {versions.map(({ version, createdAt, author, changes, summary }) => (
        <tr key={version} aria-current={version === selected ? 'true' : undefined} data-testid={`rule-set-row-${version}`}>
          <td>
            <div className="rule-set-version">
              v{version}
              {version === current && <StatusBadge status="current" />}
            </div>
          </td>
          <td className={changes === 0 ? 'rule-set-summary muted' : 'rule-set-summary'} data-testid={`rule-set-summary-${version}`}>
            {changes === 0 ? 'No change to enforcement' : summary}
          </td>
          <td className="table-num" data-testid={`rule-set-changes-${version}`}>
            {formatCount(changes)}
          </td>
          <td>
            <time dateTime={createdAt} title={formatTimestamp(createdAt)}>
              {formatRelativeTime(createdAt)}
            </time>
          </td>
          <td className="muted">{author}</td>
          <td>
            <div className="table-actions">
              <Link
                href={ruleSetsHref(trail, { version })}
                className="btn btn-secondary btn-sm"
                aria-label={`View changes in v${version}`}
                data-testid={`rule-set-view-${version}`}
              >
                View changes
              </Link>
              {version !== current && (
                <Link
                  href={ruleSetsHref(trail, { restore: version })}
                  className="btn btn-secondary btn-sm"
                  aria-label={`Restore v${version}…`}
                  data-testid={`rule-set-restore-${version}`}
                >
                  Restore…
                </Link>
              )}
            </div>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
