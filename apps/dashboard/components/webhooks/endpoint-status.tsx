import type { WebhookEndpoint } from '@/lib/api-answers';

/** Enabled, or disabled with why (by its owner, a 410 Gone answer, days of failing). */
export function EndpointStatus({ endpoint }: { endpoint: Pick<WebhookEndpoint, 'id' | 'enabled' | 'disabledReason'> }) {
  return (
    <span className="endpoint-status" data-testid={`webhook-status-${endpoint.id}`}>
      <span className={`badge badge-${endpoint.enabled ? 'enabled' : 'disabled'}`}>{endpoint.enabled ? 'enabled' : 'disabled'}</span>
      {!endpoint.enabled && endpoint.disabledReason && <span className="muted endpoint-status-reason">{endpoint.disabledReason}</span>}
    </span>
  );
}
