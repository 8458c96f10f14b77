import Link from 'next/link';
import { RANGE_LABELS, rangeHref, USAGE_RANGES, type UsageRange } from '@/lib/usage';

/** The ranges a usage view offers, as links (the range lives in the URL), the one shown marked. */
export function RangeLinks({ path, current }: { path: string; current: UsageRange }) {
  return (
    <nav className="filter-links" aria-label="Range">
      {USAGE_RANGES.map((range) => (
        <Link
          key={range}
          href={rangeHref(path, range)}
          className={`btn btn-sm ${range === current ? '' : 'btn-secondary'}`.trim()}
          aria-current={range === current ? 'page' : undefined}
          aria-label={`Last ${RANGE_LABELS[range]}`}
          data-testid={`usage-range-${range}`}
        >
          {range}
        </Link>
      ))}
    </nav>
  );
}
