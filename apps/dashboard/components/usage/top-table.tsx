import Link from 'next/link';
import type { UsageTop } from '@/lib/api-answers';
import { formatCount } from '@/lib/format';
import { formatRate } from '@/lib/usage-chart';

interface TopTableProps {
  title: string;
  top: UsageTop;
  testId: string;
}

/**
 * Who led the range by 429 rate (among those with enough decisions), or by refused checks (`metric: refused`: keys of
 * no one are a row of their own): each a link to its own page.
 */
export function TopTable({ title, top, testId }: TopTableProps) {
  const refused = top.metric === 'refused';
  const rows = top.items.map((entry) => {
    if (top.by === 'tenants') {
      const key = entry.tenantId ?? 'none';
      return {
        key,
        cell: entry.tenant ? (
          <Link href={`/tenants/${encodeURIComponent(entry.tenant.id)}`} data-testid={`${testId}-link-${entry.tenant.slug}`}>
            {entry.tenant.name}
          </Link>
        ) : entry.tenantId === null ? (
          <span className="muted" data-testid={`${testId}-no-tenant`}>
            Keys of no tenant
          </span>
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
          {refused ? 'No check was refused in this range.' : `None was limited in this range with at least ${formatCount(top.minDecisions)} decisions.`}
        </p>
      ) : (
        <table className="table" data-testid={testId}>
          <thead>
            <tr>
              <th scope="col">{top.by === 'tenants' ? 'Tenant' : 'Endpoint'}</th>
              {refused ? (
                <th scope="col" className="table-num">
                  Refused
                </th>
              ) : (
                <>
                  <th scope="col" className="table-num">
                    429 rate
                  </th>
                  <th scope="col" className="table-num">
                    Denied
                  </th>
                </>
              )}
              <th scope="col" className="table-num">
                Decisions
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ key, cell, entry }) => (
              <tr key={key}>
                <td className="top-name">{cell}</td>
                {refused ? (
                  <td className="table-num" data-testid={`${testId}-refused-${entry.tenant?.slug ?? 'none'}`}>
                    {formatCount(entry.refused)}
                  </td>
                ) : (
                  <>
                    <td className="table-num">{formatRate(entry.denyRate)}</td>
                    <td className="table-num">{formatCount(entry.denied)}</td>
                  </>
                )}
                <td className="table-num">{formatCount(entry.decisions)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
