import Link from 'next/link';
import type { DegradedUsage } from '@/lib/api-answers';
import { formatCount } from '@/lib/format';
import { DEGRADED_CAUSE_TEXT, degradedBuckets } from '@/lib/degraded';
import { bucketLabel } from '@/lib/usage-chart';
import { type Column, TableCard } from '../data-table';
import { CountCell } from './traffic-cells';

type Causes = DegradedUsage['byCause'];

/** The causes shown: the three usage counts, and `unknown` only when some decisions were counted before causes were. */
function causesOf(usage: DegradedUsage): (keyof Causes)[] {
  return DEGRADED_CAUSE_TEXT.filter((c) => c.id !== 'unknown' || usage.byCause.unknown > 0).map((c) => c.id);
}

const labelOf = (id: keyof Causes) => DEGRADED_CAUSE_TEXT.find((c) => c.id === id)!.label;

/** The columns of a row of degraded decisions: in all, then per cause. */
function causeColumns(causes: (keyof Causes)[]): Column[] {
  return [{ label: 'Degraded', numeric: true }, ...causes.map((id) => ({ label: labelOf(id), numeric: true }) as const)];
}

function CauseCells({ causes, counts }: { causes: (keyof Causes)[]; counts: { decisions: number; byCause: Causes } }) {
  return (
    <>
      <CountCell value={counts.decisions} />
      {causes.map((id) => (
        <CountCell key={id} value={counts.byCause[id]} />
      ))}
    </>
  );
}

/** Why decisions were degraded (per cause), when (the buckets that had some), and for whom (the tenants with the most). */
export function DegradedBreakdown({ usage }: { usage: DegradedUsage }) {
  if (usage.decisions === 0) {
    return (
      <section className="card panel" data-testid="degraded-empty">
        <h2>No degraded decision in this range</h2>
        <p>
          Redis decided every check. When it does not (it answers too late, the circuit in front of it is open, or the call
          fails), each check is answered by its policy&apos;s failure mode and counted here with its cause.
        </p>
      </section>
    );
  }
  const causes = causesOf(usage);
  const buckets = degradedBuckets(usage.points);
  const most = Math.max(...buckets.map((b) => b.decisions));
  return (
    <div className="usage-page" data-testid="degraded">
      <dl className="usage-totals" data-testid="degraded-causes">
        {DEGRADED_CAUSE_TEXT.filter((c) => causes.includes(c.id)).map((c) => (
          <div key={c.id} className="card usage-total" data-testid={`degraded-cause-${c.id}`}>
            <dt>{c.label}</dt>
            <dd className="usage-total-value" data-testid={`degraded-cause-${c.id}-value`}>
              {formatCount(usage.byCause[c.id])}
            </dd>
            <dd className="usage-total-hint muted">{c.hint}</dd>
          </div>
        ))}
      </dl>
      <TableCard
        title={`When: the ${usage.step}s with degraded decisions, newest first`}
        testId="degraded-when"
        tableClassName="table-compact"
        columns={[usage.step === 'day' ? 'Day' : `${usage.step === 'minute' ? 'Minute' : 'Hour'} (UTC)`, ...causeColumns(causes)]}
        empty={null}
      >
        {buckets.map((b) => (
          <tr key={b.at}>
            <td>
              {bucketLabel(b.at, usage.step, 'UTC', true)}
              <span className="degraded-bar" aria-hidden="true" style={{ width: `${Math.max(2, Math.round((b.decisions / most) * 100))}%` }} />
            </td>
            <CauseCells causes={causes} counts={b} />
          </tr>
        ))}
      </TableCard>
      <TableCard title="Which tenants: the most degraded decisions" testId="degraded-tenants" tableClassName="table-compact" columns={['Tenant', ...causeColumns(causes)]} empty={null}>
        {usage.tenants.map((t, i) => (
          <tr key={t.tenant?.id ?? `deleted-${i}`}>
            <td className="top-name">
              {t.tenant ? <Link href={`/tenants/${encodeURIComponent(t.tenant.id)}`}>{t.tenant.name}</Link> : <span className="muted">A deleted tenant</span>}
            </td>
            <CauseCells causes={causes} counts={t} />
          </tr>
        ))}
      </TableCard>
    </div>
  );
}
