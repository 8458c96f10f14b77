import Link from 'next/link';
import type { UsageTop } from '@/lib/api-answers';
import { formatCount } from '@/lib/format';
import { formatRate } from '@/lib/usage-chart';

interface TopTableProps {
  title: string;
  top: UsageTop;
  testId: string;
}

/** Who led the range by 429 rate (among those with enough decisions): each a link to its own page. */
export function TopTable({ title, top, testId }: TopTableProps) {
  const rows = top.items.map((entry) => {
    if (top.by === 'tenants') {
      const key = entry.tenantId ?? 'none';
      return {
        key,
        cell: entry.tenant ? (
          <Link href={`/tenants/${encodeURIComponent(entry.tenant.id)}`} data-testid={`${testId}-link-${entry.tenant.slug}`}>
            {entry.tenant.name}
          </Link>
        ) : (
          <span className="muted">A deleted tenant</span>
        ),
        entry,
      };
    }
    const key = entry.policyId ?? 'none';
    return {
      key,
      cell: entry.policy ? (
        <Link href={`/policies/${encodeURIComponent(entry.policy.id)}`} data-testid={`${testId}-link-${entry.policy.name}`}>
          <code>
            {entry.policy.method} {entry.policy.pattern}
          </code>
        </Link>
      ) : (
        <span className="muted">A deleted policy</span>
      ),
      entry,
    };
  });
  return (
    <section className="card table-card" aria-labelledby={`${testId}-title`}>
      <h2 id={`${testId}-title`} className="card-title">
        {title}
      </h2>
      {rows.length === 0 ? (
        <p className="muted card-empty" data-testid={`${testId}-empty`}>
          None was limited in this range with at least {formatCount(top.minDecisions)} decisions.
        </p>
      ) : (
        <table className="table" data-testid={testId}>
          <thead>
            <tr>
              <th scope="col">{top.by === 'tenants' ? 'Tenant' : 'Endpoint'}</th>
              <th scope="col" className="table-num">
                429 rate
              </th>
              <th scope="col" className="table-num">
                Denied
              </th>
              <th scope="col" className="table-num">
                Decisions
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ key, cell, entry }) => (
              <tr key={key}>
                <td className="top-name">{cell}</td>
                <td className="table-num">{formatRate(entry.denyRate)}</td>
                <td className="table-num">{formatCount(entry.denied)}</td>
                <td className="table-num">{formatCount(entry.decisions)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
