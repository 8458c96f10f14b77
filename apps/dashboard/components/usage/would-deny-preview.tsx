import Link from 'next/link';
import type { WouldDeny } from '@/lib/api-answers';
import { formatCount, formatTimestamp } from '@/lib/format';
import { EnforceButton } from './enforce-button';

/**
 * For a policy in shadow mode: what enforcing it over the range would have refused. The count is exact (the rolled
 * up would-denies) over the time it covers, from the start of its first bucket to what the worker has rolled up; the
 * subjects come from the sampled ones of that same time (so no subject has more samples than the count), and the page
 * says so.
 */
export function WouldDenyPreview({ preview, route }: { preview: WouldDeny; route: string }) {
  const { shadowDenied, subjects } = preview;
  const range = `${formatTimestamp(preview.countedFrom)} to ${formatTimestamp(preview.countedTo)}`;
  // Seconds behind is the next rollup; a minute or more is a worker that has not rolled up since (worth saying).
  const behind = Date.parse(preview.to) - Date.parse(preview.countedTo) >= 60_000;
  const subjectCount = subjects.length;
  return (
    <section className="card would-deny" aria-labelledby="would-deny-title" data-testid="would-deny">
      <h2 id="would-deny-title" className="would-deny-summary">
        Had this been enforced from {range},{' '}
        <strong data-testid="would-deny-count">{formatCount(shadowDenied)}</strong> {shadowDenied === 1 ? 'request' : 'requests'}
        {subjectCount > 0 && (
          <>
            {' '}
            from <strong data-testid="would-deny-subject-count">{formatCount(subjectCount)}</strong> sampled {subjectCount === 1 ? 'subject' : 'subjects'}
          </>
        )}{' '}
        would have been denied.
      </h2>
      {behind && (
        <p className="muted" data-testid="would-deny-counted-to">
          Counted up to {formatTimestamp(preview.countedTo)}, as far as the worker has rolled up usage: later checks count from its next rollup (is the worker running?).
        </p>
      )}
      {shadowDenied > 0 && subjectCount === 0 && (
        <p className="muted">No sample of them is left to name whom (samples are kept for the last thousand denials of each tenant).</p>
      )}
      {subjectCount > 0 && (
        <>
          <p className="muted">
            The count is exact. The subjects come from a sample of those same would-denies (a few a second per tenant, the
            last thousand), of the {formatCount(preview.tenantsSampled)} {preview.tenantsSampled === 1 ? 'tenant' : 'tenants'} with the most of
            them{preview.tenants > preview.tenantsSampled ? ` (of ${formatCount(preview.tenants)})` : ''}: there may be others.
          </p>
          <ul className="would-deny-list" data-testid="would-deny-subjects">
            {subjects.map((s) => (
              <li key={`${s.tenant?.id ?? '-'}|${s.subject}`} data-testid="would-deny-subject">
                <code>{s.subject === '' ? '(no subject)' : s.subject}</code>
                {s.tenant ? <Link href={`/tenants/${encodeURIComponent(s.tenant.id)}`}>{s.tenant.name}</Link> : <span className="muted">a deleted tenant</span>}
                <span className="muted">
                  {formatCount(s.samples)} of them sampled, last {formatTimestamp(s.lastAt)}
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
      <EnforceButton policyId={preview.policy.id} route={route} />
    </section>
  );
}
