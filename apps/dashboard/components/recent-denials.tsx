import type { DenialSample } from '@/lib/usage';
import { formatInZone } from '@/lib/usage';
import { TableHead } from './data-table';
import './limits.css';
import './recent-denials.css';

interface RecentDenialsProps {
  items: DenialSample[];
  timeZone: string;
  /** What the empty list says (who is asking changes what to do next). */
  empty: string;
}

/** A sample of a tenant's latest denials, newest first: when, whose request, which endpoint, which limit refused it. */
export function RecentDenials({ items, timeZone, empty }: RecentDenialsProps) {
  return (
    <section className="card" aria-labelledby="recent-denials-title" data-testid="recent-denials">
      <header className="plan-card-header">
        <h2 id="recent-denials-title">Recent denials</h2>
        <span className="chip" title="A few a second at most are kept, about the last thousand: the counts in the chart are exact">
          sampled
        </span>
        <span className="tenant-count">Times in {timeZone}</span>
      </header>
      {items.length === 0 ? (
        <p className="panel muted" data-testid="recent-denials-empty">
          {empty}
        </p>
      ) : (
        <div className="table-scroll">
          <table className="table denials-table" data-testid="denials-table">
            <TableHead columns={['Time', 'Subject', 'Endpoint', 'Limit']} />
            <tbody>
              {items.map((item) => (
                <tr key={item.id} data-testid="denial-row">
                  <td className="denial-time nowrap">{formatInZone(item.at, timeZone, true)}</td>
                  <td className="denial-subject mono break" data-label="Subject">
                    {item.subject || '—'}
                  </td>
                  <td className="denial-endpoint mono break" data-label="Endpoint">
                    {item.endpoint}
                  </td>
                  <td className="denial-limit">
                    <span className="limit-name">{item.limit}</span>
                    {item.result === 'shadow_denied' && (
                      <span className="badge badge-mode-shadow" title="A policy in shadow mode would have refused it; it was admitted">
                        shadow
                      </span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
