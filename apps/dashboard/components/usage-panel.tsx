import type { ReactNode } from 'react';
import type { UsageSeries } from '@/lib/api-answers';
import { formatCount } from '@/lib/format';
import { usageTotals } from '@/lib/usage';

interface UsagePanelProps {
  title: string;
  /** Ids and test ids of the panel ("usage", "usage-policy-items"). */
  id: string;
  series: UsageSeries;
  /** Next to the title: the range links, a download. */
  actions?: ReactNode;
  /** The chart of the series. */
  children: ReactNode;
}

/** A usage series: its totals over the range, then its chart. */
export function UsagePanel({ title, id, series, actions, children }: UsagePanelProps) {
  const totals = usageTotals(series.points);
  const facts: { key: string; label: string; value: number; hidden?: boolean }[] = [
    { key: 'checks', label: 'Checks', value: totals.checks },
    { key: 'allowed', label: 'Allowed', value: totals.allowed },
    { key: 'denied', label: 'Denied (429)', value: totals.denied },
    { key: 'shadow', label: 'Shadow denials', value: totals.shadowDenied, hidden: totals.shadowDenied === 0 },
    { key: 'degraded', label: 'Degraded', value: totals.degraded, hidden: totals.degraded === 0 },
    { key: 'refused', label: 'Refused', value: totals.refused, hidden: totals.refused === 0 },
    { key: 'cost', label: 'Units charged', value: totals.cost },
  ];
  return (
    <section className="card" aria-labelledby={`${id}-title`} data-testid={id}>
      <header className="plan-card-header usage-header">
        <h2 id={`${id}-title`}>{title}</h2>
        {actions}
      </header>
      <dl className="usage-totals">
        {facts
          .filter((fact) => !fact.hidden)
          .map((fact) => (
            <div key={fact.key}>
              <dt>{fact.label}</dt>
              <dd data-testid={`${id}-${fact.key}`}>{formatCount(fact.value)}</dd>
            </div>
          ))}
      </dl>
      <div className="usage-panel-chart">{children}</div>
    </section>
  );
}
