import Link from 'next/link';
import type { AuditFilter } from '@/lib/audit';
import { AUDIT_PATH, RESOURCE_TYPES } from '@/lib/audit';
import { AnySelect } from './filter-form';
import './audit.css';

/**
 * Who, which resource, which days: a plain GET form, so a filtered log is a link like any other (and works without
 * script). Filtering starts again from the newest entry.
 */
export function AuditFilters({ filter }: { filter: AuditFilter }) {
  const { query } = filter;
  return (
    <form method="get" action={AUDIT_PATH} className="card form-body audit-filters" aria-label="Filter the audit log" data-testid="audit-filters">
      <div className="form-row">
        <div className="field field-compact field-wide">
          <label htmlFor="audit-filter-actor">Actor</label>
          <input id="audit-filter-actor" name="actor" className="input" defaultValue={query.actor ?? ''} placeholder="user:ann@example.com" data-testid="audit-filter-actor" />
        </div>
        <div className="field field-compact">
          <label htmlFor="audit-filter-type">Resource</label>
          <AnySelect id="audit-filter-type" name="entityType" defaultValue={query.entityType ?? ''} options={RESOURCE_TYPES} />
        </div>
        <div className="field field-compact field-id">
          <label htmlFor="audit-filter-id">Resource id</label>
          <input id="audit-filter-id" name="entityId" className="input" defaultValue={query.entityId ?? ''} data-testid="audit-filter-id" />
        </div>
        <div className="field field-compact field-day">
          <label htmlFor="audit-filter-from">From (UTC)</label>
          <input id="audit-filter-from" name="from" type="date" className="input" defaultValue={filter.fromDay ?? ''} data-testid="audit-filter-from" />
        </div>
        <div className="field field-compact field-day">
          <label htmlFor="audit-filter-to">To (UTC)</label>
          <input id="audit-filter-to" name="to" type="date" className="input" defaultValue={filter.toDay ?? ''} data-testid="audit-filter-to" />
        </div>
        <div className="form-row-buttons">
          <button type="submit" className="btn btn-secondary" data-testid="audit-filter-submit">
            Filter
          </button>
          <Link href={AUDIT_PATH} className="btn btn-secondary">
            Clear
          </Link>
        </div>
      </div>
    </form>
  );
}
