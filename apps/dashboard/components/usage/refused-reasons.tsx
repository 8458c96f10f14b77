import type { UsageSeries } from '@/lib/api-answers';
import { formatCount } from '@/lib/format';
import './refused-reasons.css';

/** What each refusal reason means, as people say it; a reason not listed (a newer API's) is shown as it is. */
const REASON_LABELS = new Map<string, string>([
  ['key_missing', 'No key (forward-auth)'],
  ['key_invalid', 'Unknown or revoked key'],
  ['key_expired', 'Expired key'],
  ['tenant_suspended', 'Tenant suspended'],
  ['tenant_not_allowed', 'Tenant not allowed for the service key'],
]);

export function refusalLabel(reason: string): string {
  return REASON_LABELS.get(reason) ?? reason;
}

/**
 * The range's refused checks by reason (`refusedByReason` of a usage series): checks Tollgate answered without a
 * decision on any limit. A list, most first, each with its code; nothing when there were none, unless `empty` says what
 * to show then.
 */
export function RefusedReasons({ reasons, testId, empty }: { reasons: UsageSeries['refusedByReason']; testId: string; empty?: string }) {
  if (reasons.length === 0) {
    return empty ? (
      <p className="muted refused-empty" data-testid={`${testId}-empty`}>
        {empty}
      </p>
    ) : null;
  }
  return (
    <dl className="refused-reasons" data-testid={testId}>
      {reasons.map((r) => (
        <div key={r.reason} data-testid={`${testId}-${r.reason}`}>
          <dt>
            {refusalLabel(r.reason)} <code>{r.reason}</code>
          </dt>
          <dd data-testid={`${testId}-${r.reason}-count`}>{formatCount(r.checks)}</dd>
        </div>
      ))}
    </dl>
  );
}
