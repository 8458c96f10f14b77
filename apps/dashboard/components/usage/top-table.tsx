import Link from 'next/link';
import type { UsageTop } from '@/lib/api-answers';
import { formatCount } from '@/lib/format';
import { TableCard } from '../data-table';
import { CountCell, DECISIONS_COLUMN, DENIAL_COLUMNS, DenialCells } from './traffic-cells';

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
    <TableCard
      title={title}
      testId={testId}
      columns={[top.by === 'tenants' ? 'Tenant' : 'Endpoint', ...(refused ? [{ label: 'Refused', numeric: true } as const] : DENIAL_COLUMNS), DECISIONS_COLUMN]}
      empty={rows.length > 0 ? null : refused ? 'No check was refused in this range.' : `None was limited in this range with at least ${formatCount(top.minDecisions)} decisions.`}
      emptyTestId={`${testId}-empty`}
    >
      {rows.map(({ key, cell, entry }) => (
        <tr key={key}>
          <td className="top-name">{cell}</td>
          {refused ? <CountCell value={entry.refused} testId={`${testId}-refused-${entry.tenant?.slug ?? 'none'}`} /> : <DenialCells entry={entry} />}
          <CountCell value={entry.decisions} />
        </tr>
      ))}
    </TableCard>
  );
}
