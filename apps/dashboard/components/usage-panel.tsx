import type { ReactNode } from 'react';
import type { UsageSeries } from '@/lib/api-answers';
import { formatCount } from '@/lib/format';
import { totalsOf } from '@/lib/overview';
import { RefusedReasons } from './usage/refused-reasons';
import { formatRate } from '@/lib/usage-chart';
import './usage-panel.css';

interface UsagePanelProps {
  title: string;
  /** Ids and test ids of the panel ("tenant-usage", "own-usage-policy-search"). */
  id: string;
  series: UsageSeries;
  /** The chart of the series. */
  children: ReactNode;
}

/** A usage series in a card: its totals over the range in one line, its refused checks by reason, then its chart. */
export function UsagePanel({ title, id, series, children }: UsagePanelProps) {
  const totals = totalsOf(series);
  const cost = series.points.reduce((sum, p) => sum + p.cost, 0);
  const facts: { key: string; label: string; value: string; shown?: boolean }[] = [
    { key: 'decisions', label: 'Decisions', value: formatCount(totals.decisions) },
    { key: 'allowed', label: 'Allowed', value: formatCount(totals.allowed) },
    { key: 'denied', label: 'Denied (429)', value: formatCount(totals.denied) },
    { key: 'deny-rate', label: '429 rate', value: formatRate(totals.denyRate) },
    { key: 'shadow', label: 'Shadow would-deny', value: formatCount(totals.shadowDenied), shown: totals.shadowDenied > 0 },
    { key: 'degraded', label: 'Degraded', value: formatCount(totals.degraded), shown: totals.degraded > 0 },
    { key: 'cost', label: 'Units charged', value: formatCount(cost) },
    // Not decisions: checks answered without one (a bad key, a suspended tenant, a service that may not check it).
    // (None on an endpoint policy's series: a refused check matches no policy.)
    { key: 'refused', label: 'Refused', value: formatCount(totals.refused), shown: series.policy === null },
  ];
  return (
    <section className="card" aria-labelledby={`${id}-title`} data-testid={id}>
      <header className="plan-card-header">
        <h2 id={`${id}-title`}>{title}</h2>
      </header>
      <dl className="usage-panel-totals">
        {facts
          .filter((fact) => fact.shown !== false)
          .map((fact) => (
            <div key={fact.key}>
              <dt>{fact.label}</dt>
              <dd data-testid={`${id}-${fact.key}`}>{fact.value}</dd>
            </div>
          ))}
      </dl>
      <RefusedReasons reasons={series.refusedByReason} testId={`${id}-refused-reasons`} />
      <div className="usage-panel-chart">{children}</div>
    </section>
  );
}
