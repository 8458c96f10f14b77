import Link from 'next/link';
import { formatCount } from '@/lib/format';
import { MIN_VOLUMES } from '@/lib/overview';

/** The least decisions an entry of the top lists needs to be ranked by its 429 rate: links, kept in the URL. */
export function MinVolumePicker({ path, query, min }: { path: string; query: URLSearchParams; min: number }) {
  const href = (value: number) => {
    const next = new URLSearchParams(query);
    next.set('min', String(value));
    return `${path}?${next}`;
  };
  return (
    <div className="min-volume">
      <span className="muted" id="min-volume-label">
        Rank by 429 rate from
      </span>
      <nav className="segmented" aria-labelledby="min-volume-label">
        {MIN_VOLUMES.map((value) => (
          <Link key={value} href={href(value)} aria-current={value === min ? 'true' : undefined} data-testid={`min-volume-${value}`}>
            {formatCount(value)}
          </Link>
        ))}
      </nav>
      <span className="muted">decisions</span>
    </div>
  );
}
