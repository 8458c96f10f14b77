import type { ReactNode } from 'react';
import type { Loaded } from '@/lib/session';
import { ErrorPanel } from './error-panel';
import { MutationStatusProvider } from './mutation-status';
import { PageHeading } from './page-heading';
import { CursorPagination } from './pagination';

interface ListPageProps<T> {
  title: string;
  description: string;
  /** Next to the heading: filters, a form. */
  heading?: ReactNode;
  loaded: Loaded<T>;
  /** The page's cards and tables, one under the other, from what it loaded. */
  children: (data: T) => ReactNode;
}

/** An operator's list page (plans, tenants, keys…): its heading, then what it loaded, or why that failed. */
export function ListPage<T>({ title, description, heading, loaded, children }: ListPageProps<T>) {
  return (
    <>
      <PageHeading title={title} description={description}>
        {heading}
      </PageHeading>
      {!loaded.ok ? (
        <ErrorPanel problem={loaded.problem} />
      ) : (
        <MutationStatusProvider>
          <div className="plan-grid">{children(loaded.data)}</div>
        </MutationStatusProvider>
      )}
    </>
  );
}

/** What a list shows when it has nothing. */
export function EmptyState({ testId, children }: { testId?: string; children: ReactNode }) {
  return (
    <p className="card panel muted" data-testid={testId}>
      {children}
    </p>
  );
}

interface PagedListProps {
  page: { items: readonly unknown[]; nextCursor: string | null };
  /** Cursors of the pages before this one (see `CursorPagination`). */
  trail: string[];
  basePath: string;
  /** Shown instead when the first page is empty. */
  empty: ReactNode;
  /** One table and its pagination stay together; cards (`grouped={false}`) each take their own place. */
  grouped?: boolean;
  children: ReactNode;
}

/** One page of a list with its pagination, or, when even the first page is empty, `empty`. */
export function PagedList({ page, trail, basePath, empty, grouped = true, children }: PagedListProps) {
  if (page.items.length === 0 && trail.length === 0) return empty;
  const list = (
    <>
      {children}
      <CursorPagination basePath={basePath} trail={trail} nextCursor={page.nextCursor} shown={page.items.length} />
    </>
  );
  return grouped ? <div>{list}</div> : list;
}
