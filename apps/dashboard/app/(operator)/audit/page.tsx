import type { Metadata } from 'next';
import Link from 'next/link';
import { AuditFilters } from '@/components/audit-filters';
import { AuditList } from '@/components/audit-list';
import { EmptyState, ListPage, PagedList } from '@/components/list-page';
import { listAudit } from '@/lib/api';
import { AUDIT_PATH, auditHref, parseAuditFilter } from '@/lib/audit';
import { listQuery, type SearchPageProps } from '@/lib/pagination';
import { loadWithSession } from '@/lib/session';

export const metadata: Metadata = { title: 'Audit log' };

const PAGE_SIZE = 50;

export default async function AuditPage({ searchParams }: SearchPageProps) {
  const { filter, trail } = await listQuery(searchParams, parseAuditFilter);
  const loaded = await loadWithSession((token) => listAudit(token, filter.query, trail.at(-1), PAGE_SIZE));
  const filtered = Object.keys(filter.query).length > 0;
  // The pagination keeps the filters that were used (as the form has them), not what was left out.
  const basePath = auditHref({ ...filter.query, fromDay: filter.query.from ? filter.fromDay : undefined, toDay: filter.query.to ? filter.toDay : undefined });

  return (
    <ListPage
      title="Audit log"
      description="Who changed what and when, newest first. Each change to the rules links to the rule set version it published."
      loaded={loaded}
    >
      {(page) => (
        <>
          <AuditFilters filter={filter} />
          {filter.problems.length > 0 && (
            <div className="form-alert" role="alert" data-testid="audit-filter-problems">
              {filter.problems.map((problem) => (
                <p key={problem}>{problem}</p>
              ))}
            </div>
          )}
          <PagedList
            page={page}
            trail={trail}
            basePath={basePath}
            empty={
              <EmptyState testId="audit-empty">
                {filtered ? (
                  <>
                    No changes match these filters. Widen the days, or <Link href={AUDIT_PATH}>clear the filters</Link> to see the whole log.
                  </>
                ) : (
                  <>
                    Nothing has been changed yet. Every change to <Link href="/plans">plans</Link>, <Link href="/tenants">tenants</Link>,{' '}
                    <Link href="/policies">policies</Link>, <Link href="/keys">keys</Link> and <Link href="/users">users</Link> is recorded here
                    as it is made: change a limit on the Plans page to see the first one.
                  </>
                )}
              </EmptyState>
            }
          >
            <AuditList entries={page.items} />
          </PagedList>
        </>
      )}
    </ListPage>
  );
}
