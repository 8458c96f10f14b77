import Link from 'next/link';
import type { DegradedUsage } from '@/lib/api-answers';
import { formatCount } from '@/lib/format';
import { DEGRADED_CAUSE_TEXT, degradedBuckets } from '@/lib/degraded';
import { bucketLabel } from '@/lib/usage-chart';

type Causes = DegradedUsage['byCause'];

/** The causes shown: the three usage counts, and `unknown` only when some decisions were counted before causes were. */
function causesOf(usage: DegradedUsage): (keyof Causes)[] {
  return DEGRADED_CAUSE_TEXT.filter((c) => c.id !== 'unknown' || usage.byCause.unknown > 0).map((c) => c.id);
}

const labelOf = (id: keyof Causes) => DEGRADED_CAUSE_TEXT.find((c) => c.id === id)!.label;

/** The columns of a row of degraded decisions: in all, then per cause. */
function CauseHeaders({ causes }: { causes: (keyof Causes)[] }) {
  return (
    <>
      <th scope="col" className="table-num">
        Degraded
      </th>
      {causes.map((id) => (
        <th key={id} scope="col" className="table-num">
          {labelOf(id)}
        </th>
      ))}
    </>
  );
}

function CauseCells({ causes, counts }: { causes: (keyof Causes)[]; counts: { decisions: number; byCause: Causes } }) {
  return (
    <>
      <td className="table-num">{formatCount(counts.decisions)}</td>
      {causes.map((id) => (
        <td key={id} className="table-num">
          {formatCount(counts.byCause[id])}
        </td>
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
      <section className="card table-card" aria-labelledby="degraded-when-title">
        <h2 id="degraded-when-title" className="card-title">
          When: the {usage.step}s with degraded decisions, newest first
        </h2>
        <table className="table table-compact" data-testid="degraded-when">
          <thead>
            <tr>
              <th scope="col">{usage.step === 'day' ? 'Day' : `${usage.step === 'minute' ? 'Minute' : 'Hour'} (UTC)`}</th>
              <CauseHeaders causes={causes} />
            </tr>
          </thead>
          <tbody>
            {buckets.map((b) => (
              <tr key={b.at}>
                <td>
                  {bucketLabel(b.at, usage.step, 'UTC', true)}
                  <span className="degraded-bar" aria-hidden="true" style={{ width: `${Math.max(2, Math.round((b.decisions / most) * 100))}%` }} />
                </td>
                <CauseCells causes={causes} counts={b} />
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section className="card table-card" aria-labelledby="degraded-tenants-title">
        <h2 id="degraded-tenants-title" className="card-title">
          Which tenants: the most degraded decisions
        </h2>
        <table className="table table-compact" data-testid="degraded-tenants">
          <thead>
            <tr>
              <th scope="col">Tenant</th>
              <CauseHeaders causes={causes} />
            </tr>
          </thead>
          <tbody>
            {usage.tenants.map((t, i) => (
              <tr key={t.tenant?.id ?? `deleted-${i}`}>
                <td className="top-name">
                  {t.tenant ? <Link href={`/tenants/${encodeURIComponent(t.tenant.id)}`}>{t.tenant.name}</Link> : <span className="muted">A deleted tenant</span>}
                </td>
                <CauseCells causes={causes} counts={t} />
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </div>
  );
}
