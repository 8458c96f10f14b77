import Link from 'next/link';
import { formatCount } from '@/lib/format';
import { formatChange, formatRateChange, type UsageTotals } from '@/lib/overview';
import { formatRate } from '@/lib/usage-chart';

interface Tile {
  id: string;
  label: string;
  value: string;
  change: string;
  hint?: string;
  /** Where the tile's figure is explained (the degraded drill-down). */
  href?: string;
}

/**
 * The range's totals, each with its change against the previous range of the same length. `degradedHref`: the page
 * that says why decisions were degraded (the operator's drill-down); the Degraded tile links to it.
 */
export function UsageTotalsTiles({
  current,
  previous,
  testId = 'totals',
  degradedHref,
  refused = true,
}: {
  current: UsageTotals;
  previous: UsageTotals;
  testId?: string;
  degradedHref?: string;
  /** Whether to show the refused checks (not on an endpoint policy's page: a refused check matches no policy). */
  refused?: boolean;
}) {
  const count = (id: string, label: string, key: 'decisions' | 'allowed' | 'denied' | 'shadowDenied' | 'degraded' | 'refused', hint?: string): Tile => ({
    id,
    label,
    value: formatCount(current[key]),
    change: formatChange(current[key], previous[key]),
    ...(hint ? { hint } : {}),
  });
  const tiles: Tile[] = [
    count('decisions', 'Decisions', 'decisions'),
    count('allowed', 'Allowed', 'allowed'),
    count('denied', 'Denied (429)', 'denied'),
    { id: 'deny-rate', label: '429 rate', value: formatRate(current.denyRate), change: formatRateChange(current.denyRate, previous.denyRate) },
    count('shadow', 'Shadow would-deny', 'shadowDenied', 'admitted; enforce would refuse'),
    { ...count('degraded', 'Degraded', 'degraded', 'decided without Redis'), ...(degradedHref ? { href: degradedHref } : {}) },
    ...(refused ? [count('refused', 'Refused', 'refused', 'no decision: bad key, suspended or not allowed')] : []),
  ];
  return (
    <dl className="usage-totals" data-testid={testId}>
      {tiles.map((tile) => (
        <div key={tile.id} className="card usage-total" data-testid={`${testId}-${tile.id}`}>
          <dt>
            {tile.href ? (
              <Link href={tile.href} className="usage-total-link" data-testid={`${testId}-${tile.id}-link`}>
                {tile.label}
                <span className="sr-only">: why, when and which tenants</span>
                <span aria-hidden="true"> ›</span>
              </Link>
            ) : (
              tile.label
            )}
          </dt>
          <dd className="usage-total-value" data-testid={`${testId}-${tile.id}-value`}>
            {tile.value}
          </dd>
          <dd className="usage-total-change muted">
            <span className="sr-only">Against the previous range: </span>
            {tile.change}
            <span aria-hidden="true"> vs previous</span>
          </dd>
          {tile.hint && <dd className="usage-total-hint muted">{tile.hint}</dd>}
        </div>
      ))}
    </dl>
  );
}
