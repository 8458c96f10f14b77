import type { UsageRoutes } from '@/lib/api-answers';
import { formatCount } from '@/lib/format';
import { TableCard } from '../data-table';
import { CountCell, DECISIONS_COLUMN, DENIAL_COLUMNS, DenialCells } from './traffic-cells';

interface RouteTableProps {
  title: string;
  routes: UsageRoutes;
  testId: string;
  /** What the table says when the range has no route to show. */
  empty: string;
}

/**
 * Routes as checks named them (`METHOD /path`), endpoint policy or none, with their 429 rate, denials and decisions,
 * and under each route the limits that refused it (route × limit). `other` is the routes past a tenant's cap of a
 * minute; each row's test id is its route.
 */
export function RouteTable({ title, routes, testId, empty }: RouteTableProps) {
  return (
    <TableCard
      title={title}
      testId={testId}
      tableClassName="route-table"
      columns={['Route and limits that denied it', ...DENIAL_COLUMNS, DECISIONS_COLUMN]}
      empty={routes.items.length === 0 ? empty : null}
      emptyTestId={`${testId}-empty`}
    >
      {routes.items.map((entry) => (
        <tr key={entry.route} data-testid={`${testId}-row`} data-route={entry.route}>
          <td className="top-name">
            {entry.route === 'other' ? (
              <span title={`Routes past the ${formatCount(routes.routesPerTenantMinute)} a tenant's minute counts by name`}>Other routes</span>
            ) : (
              <code>{entry.route}</code>
            )}
            {entry.limits.length > 0 && (
              <ul className="route-limits">
                {entry.limits.map((limit) => (
                  <li key={limit.name} data-testid={`${testId}-limit`} data-limit={limit.name}>
                    {limit.name}: {limit.denied > 0 ? `${formatCount(limit.denied)} denied` : ''}
                    {limit.denied > 0 && limit.shadowDenied > 0 ? ', ' : ''}
                    {limit.shadowDenied > 0 ? `${formatCount(limit.shadowDenied)} would-deny` : ''}
                  </li>
                ))}
              </ul>
            )}
          </td>
          <DenialCells entry={entry} testId={testId} />
          <CountCell value={entry.decisions} testId={`${testId}-decisions`} />
        </tr>
      ))}
    </TableCard>
  );
}
