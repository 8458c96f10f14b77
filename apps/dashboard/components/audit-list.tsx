import Link from 'next/link';
import type { AuditEntry } from '@/lib/api-answers';
import { auditHref, describeAuditEntry, resourceLabel } from '@/lib/audit';
import { formatRelativeTime, formatTimestamp } from '@/lib/format';
import { ruleSetsHref } from '@/lib/rule-sets';
import './audit.css';

/**
 * Entries newest first: what changed, who changed it and when, and the rule set version it published with a link to
 * that version's changes. Times are worked out here, on the server, so the browser renders the same text.
 */
export function AuditList({ entries }: { entries: AuditEntry[] }) {
  const now = Date.now();
  return (
    <ol className="card audit-list" data-testid="audit-list">
      {entries.map((entry) => {
        const { headline, details } = describeAuditEntry(entry);
        return (
          <li key={entry.id} className="audit-entry" data-testid="audit-entry">
            <div className="audit-entry-head">
              <span className="audit-headline" data-testid="audit-headline">
                {headline}
              </span>
              {entry.ruleVersion === null ? (
                <span className="audit-version muted">no rule set change</span>
              ) : (
                <Link
                  href={ruleSetsHref([], { version: entry.ruleVersion })}
                  className="audit-version"
                  title={`See what rule set v${entry.ruleVersion} changed`}
                  data-testid="audit-version-link"
                >
                  published v{entry.ruleVersion} →
                </Link>
              )}
            </div>
            {details.length > 0 && (
              <ul className="audit-details" data-testid="audit-details">
                {details.map((detail) => (
                  <li key={detail}>{detail}</li>
                ))}
              </ul>
            )}
            <p className="audit-meta">
              <Link href={auditHref({ actor: entry.actor })} title="Only this actor's changes" data-testid="audit-actor">
                {entry.actor}
              </Link>
              <span aria-hidden="true"> · </span>
              <time dateTime={entry.createdAt} title={formatTimestamp(entry.createdAt)}>
                {formatRelativeTime(entry.createdAt, now)}
              </time>
              <span aria-hidden="true"> · </span>
              <Link href={auditHref({ entityType: entry.entityType, entityId: entry.entityId })} title="Every change of this resource" data-testid="audit-resource">
                history of this {resourceLabel(entry.entityType)}
              </Link>
            </p>
          </li>
        );
      })}
    </ol>
  );
}
