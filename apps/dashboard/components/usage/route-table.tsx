import type { UsageRoutes } from '@/lib/api-answers';
import { formatCount } from '@/lib/format';
import { formatRate } from '@/lib/usage-chart';

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
    <section className="card table-card" aria-labelledby={`${testId}-title`}>
      <h2 id={`${testId}-title`} className="card-title">
        {title}
      </h2>
      {routes.items.length === 0 ? (
        <p className="muted card-empty" data-testid={`${testId}-empty`}>
          {empty}
        </p>
      ) : (
        <table className="table route-table" data-testid={testId}>
          <thead>
            <tr>
              <th scope="col">Route and limits that denied it</th>
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
                <td className="table-num" data-testid={`${testId}-rate`}>
                  {formatRate(entry.denyRate)}
                </td>
                <td className="table-num" data-testid={`${testId}-denied`}>
                  {formatCount(entry.denied)}
                </td>
                <td className="table-num" data-testid={`${testId}-decisions`}>
                  {formatCount(entry.decisions)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
