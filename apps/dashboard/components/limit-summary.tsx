import type { ReactNode } from 'react';
import { formatAlgorithm, formatCount, formatRate } from '@/lib/format';

/** What a limit row shows of any limit (a plan's, a policy's, an override, or one in force for a tenant). */
export interface LimitShape {
  limit: number;
  windowS: number;
  algorithm: string;
  /** A bucket's capacity when it is not the limit. */
  burst?: number | null;
  /** The calendar a fixed window follows (`day`, `month`), if any. */
  calendar?: string | null;
}

/** A limit's first two cells: its name over "100 per minute", then its algorithm over its burst. */
export function LimitSummary({ name, limit, note }: { name: ReactNode; limit: LimitShape; note?: ReactNode }) {
  return (
    <>
      <div className="limit-cell">
        <div className="limit-name">{name}</div>
        <div className="limit-window">{formatRate(limit)}</div>
        {note}
      </div>
      <div className="limit-cell">
        {formatAlgorithm(limit.algorithm)}
        {limit.burst != null && <div className="limit-window">burst {formatCount(limit.burst)}</div>}
      </div>
    </>
  );
}
