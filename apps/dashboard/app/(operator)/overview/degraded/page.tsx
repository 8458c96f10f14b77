import type { Metadata } from 'next';
import Link from 'next/link';
import { ErrorPanel } from '@/components/error-panel';
import { PageHeading } from '@/components/page-heading';
import { AutoRefresh } from '@/components/usage/auto-refresh';
import { DegradedBreakdown } from '@/components/usage/degraded-breakdown';
import { RangePicker } from '@/components/usage/range-picker';
import '@/components/usage/usage.css';
import { getDegradedUsage } from '@/lib/api';
import { formatTimestamp } from '@/lib/format';
import { parseRange, rangeQuery } from '@/lib/overview';
import type { SearchPageProps } from '@/lib/pagination';
import { loadWithSession } from '@/lib/session';

export const metadata: Metadata = { title: 'Degraded decisions' };

const PATH = '/overview/degraded';

/** The overview's Degraded tile explained: why Redis did not decide (per cause), when, and for which tenants. */
export default async function DegradedPage({ searchParams }: SearchPageProps) {
  const range = parseRange(await searchParams);
  const loaded = await loadWithSession((token) => getDegradedUsage(token, range));
  return (
    <>
      <p className="back-link">
        <Link href={`/overview?${rangeQuery(range)}`}>‹ Overview</Link>
      </p>
      <PageHeading
        title="Degraded decisions"
        description={`Checks Redis did not decide from ${formatTimestamp(range.from.toISOString())} to ${formatTimestamp(range.to.toISOString())}, answered by their policy's failure mode instead (open passes, closed refuses with 503, local decides on the node).`}
      >
        {range.live && <AutoRefresh />}
      </PageHeading>
      <RangePicker path={PATH} range={range} />
      {loaded.ok ? <DegradedBreakdown usage={loaded.data} /> : <ErrorPanel problem={loaded.problem} />}
    </>
  );
}
