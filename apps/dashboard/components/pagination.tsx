import Link from 'next/link';
import './pagination.css';

interface CursorPaginationProps {
  basePath: string;
  /** Cursors of the pages before this one, oldest first; the last one produced this page. */
  trail: string[];
  nextCursor: string | null;
  shown: number;
  /** The query parameter the cursors travel in: `after` for tenants, `before` for rule set versions. */
  param?: string;
}

/** Forward-only cursors made walkable both ways by carrying the trail of cursors in the URL. */
export function CursorPagination({ basePath, trail, nextCursor, shown, param = 'after' }: CursorPaginationProps) {
  const page = trail.length + 1;
  const previous = page > 1 ? hrefFor(basePath, param, trail.slice(0, -1)) : undefined;
  const next = nextCursor ? hrefFor(basePath, param, [...trail, nextCursor]) : undefined;

  return (
    <nav className="pagination" aria-label="Pagination">
      <span data-testid="page-info">
        Page {page} · {shown} shown
      </span>
      <span className="pagination-links">
        <PageLink href={previous} testId="page-prev" label="← Previous" />
        <PageLink href={next} testId="page-next" label="Next →" />
      </span>
    </nav>
  );
}

function PageLink({ href, testId, label }: { href: string | undefined; testId: string; label: string }) {
  if (!href) {
    return (
      <span className="btn btn-secondary" aria-disabled="true" data-testid={testId}>
        {label}
      </span>
    );
  }
  return (
    <Link className="btn btn-secondary" href={href} data-testid={testId}>
      {label}
    </Link>
  );
}

function hrefFor(basePath: string, param: string, trail: string[]): string {
  if (trail.length === 0) return basePath;
  // The base may carry a query of its own (a filtered list); the cursors follow it.
  return `${basePath}${basePath.includes('?') ? '&' : '?'}${new URLSearchParams(trail.map((cursor) => [param, cursor]))}`;
}
