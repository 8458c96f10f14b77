import { config } from '@/lib/config';
import { DEMO_CHECK } from '@/lib/overview';

/** What the overview shows before any decision was counted in its range: how to make one. */
export function NoTraffic({ everSeen }: { everSeen: boolean }) {
  const curl = [
    `curl -s ${config.api.baseUrl}/v1/check \\`,
    `  -H "Authorization: Bearer $SERVICE_KEY" -H 'Content-Type: application/json' \\`,
    `  -d '${JSON.stringify(DEMO_CHECK)}'`,
  ].join('\n');
  return (
    <section className="card panel no-traffic" data-testid="overview-empty">
      <h2>{everSeen ? 'No decisions in this range' : 'No traffic yet'}</h2>
      <p>
        {everSeen
          ? 'Nothing was checked in this range. Pick a longer range, or send a check:'
          : 'Tollgate counts every check your services make. Send one with a service key (the rollup shows it here within a minute or so):'}
      </p>
      {/* Focusable: on a phone the command scrolls sideways, by keyboard too. */}
      <pre className="code-block" tabIndex={0} aria-label="A check with curl" data-testid="overview-empty-curl">
        <code>{curl}</code>
      </pre>
      <p className="muted">
        A service key is made on the Keys page. The plans and their limits decide what a check answers; the policies
        page sets limits per endpoint.
      </p>
    </section>
  );
}
