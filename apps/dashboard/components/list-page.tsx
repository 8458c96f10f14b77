import Link from 'next/link';
import type { ReactNode } from 'react';
import { filterQuery, type SearchParams, withQuery } from '@/lib/pagination';
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

/** What a filterable list holds, for its empty state: "No policies match…", "…to see every policy." */
export interface ListNoun {
  one: string;
  many: string;
}

interface FilteredEmptyProps {
  testId: string;
  noun: ListNoun;
  /** The list's own path, without filters: where "Clear them" leads. */
  path: string;
  filtered: boolean;
  /** What the list says when it has nothing at all: what to do next. */
  children: ReactNode;
}

/** An empty filterable list: no match for its filters (and the way back to all), or nothing yet. */
export function FilteredEmpty({ testId, noun, path, filtered, children }: FilteredEmptyProps) {
  return (
    <EmptyState testId={testId}>
      {filtered ? (
        <>
          {`No ${noun.many} match these filters. `}
          <Link href={path}>Clear them</Link>
          {` to see every ${noun.one}.`}
        </>
      ) : (
        children
      )}
    </EmptyState>
  );
}

interface FilteredListProps extends Omit<PagedListProps, 'basePath' | 'empty'> {
  testId: string;
  noun: ListNoun;
  /** The list's own path, without filters. */
  path: string;
  /** The page's query: its filters travel with the pagination. */
  params: SearchParams;
  /** What the list says when it has nothing at all: what to do next. */
  nothingYet: ReactNode;
}

/** One page of a list filtered in its URL, with its pagination; or, when it is empty, the empty state that fits. */
export function FilteredList({ testId, noun, path, params, nothingYet, ...paged }: FilteredListProps) {
  const filters = filterQuery(params);
  return (
    <PagedList
      {...paged}
      basePath={withQuery(path, filters)}
      empty={
        <FilteredEmpty testId={testId} noun={noun} path={path} filtered={filters.size > 0}>
          {nothingYet}
        </FilteredEmpty>
      }
    />
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
