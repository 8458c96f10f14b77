import type { LimitShown } from '@tollgate/domain';
import type { ReactNode } from 'react';
import { formatAlgorithm, formatCount, formatRate } from '@/lib/format';
import './limits.css';

/** A limit's first two cells: its name over "100 per minute", then its algorithm over its burst. */
export function LimitSummary({ name, limit, note }: { name: ReactNode; limit: LimitShown; note?: ReactNode }) {
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
